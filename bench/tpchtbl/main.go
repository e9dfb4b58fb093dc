// Command tpchtbl writes the TPC-H data of one scale factor as files, one
// per table, from dbharness's generator (internal/workload/tpch/dbgen):
// dbgen's .tbl lines without the trailing '|', so that PostgreSQL's
// COPY ... (DELIMITER '|') and MariaDB's LOAD DATA ... FIELDS TERMINATED
// BY '|' read them as they are. bench/tpch-load.sh loads them to measure
// the server's own ceiling.
//
//	go run ./bench/tpchtbl -sf 1 -dir /tmp/tpch1
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

func main() {
	sf := flag.Float64("sf", 1, "scale factor")
	dir := flag.String("dir", ".", "directory for the files")
	flag.Parse()
	g, err := dbgen.New(*sf)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tpchtbl:", err)
		os.Exit(2)
	}
	for _, t := range dbgen.Tables {
		if err := write(g, t, filepath.Join(*dir, t.Name()+".tbl")); err != nil {
			fmt.Fprintln(os.Stderr, "tpchtbl:", err)
			os.Exit(1)
		}
	}
}

func write(g *dbgen.Gen, t dbgen.Table, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rows := g.Span(t)
	var b []byte
	const step = 10000
	for first := int64(1); first <= rows; first += step {
		b = g.AppendTable(b[:0], t, first, min(step, rows-first+1))
		// Drop each line's trailing '|'.
		b = bytes.ReplaceAll(b, []byte("|\n"), []byte("\n"))
		if _, err := w.Write(b); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
