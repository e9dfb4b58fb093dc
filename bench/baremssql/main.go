// Command baremssql is the smallest go-mssqldb client that does what
// `dbharness run tpcb --mix select-only` does on SQL Server: -c
// connections, each on a goroutine of its own, running -t times the
// prepared statement SELECT abalance FROM pgbench_accounts WHERE aid = @p1
// with a uniformly random aid, through database/sql, under a context that
// is never cancelled (as dbharness runs its statements there). It measures
// nothing itself: bench/vs-bare-mssqldb.sh runs it beside dbharness in
// pairs (bench/pairs), which read its CPU and wall time from the OS.
//
// With -exec it runs one batch and exits instead (the benchmark scripts
// create and drop their T-SQL databases with it).
//
//	go run ./bench/baremssql -db 'sqlserver://u:p@127.0.0.1:14330?database=bench&encrypt=disable' -c 8 -t 10000 -s 1
//	go run ./bench/baremssql -db 'sqlserver://u:p@127.0.0.1:14330?database=master' -exec 'CREATE DATABASE bench'
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/microsoft/go-mssqldb/msdsn"
)

func main() {
	url := flag.String("db", "", "sqlserver:// URL (go-mssqldb's)")
	clients := flag.Int("c", 8, "connections, one goroutine each")
	tx := flag.Int("t", 10000, "statements per connection")
	scale := flag.Int64("s", 1, "tpcb scale (100,000 accounts each)")
	exec := flag.String("exec", "", "run this batch and exit")
	flag.Parse()
	if *url == "" || *clients < 1 || *tx < 1 || *scale < 1 {
		fmt.Fprintln(os.Stderr, "baremssql: give -db URL, -c >= 1, -t >= 1 and -s >= 1")
		os.Exit(2)
	}
	cfg, err := msdsn.Parse(*url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baremssql: the URL:", err)
		os.Exit(2)
	}
	d := sql.OpenDB(mssql.NewConnectorConfig(cfg))
	defer d.Close()
	ctx := context.Background()
	if *exec != "" {
		if _, err := d.ExecContext(ctx, *exec); err != nil {
			fmt.Fprintln(os.Stderr, "baremssql:", err)
			os.Exit(1)
		}
		return
	}
	d.SetMaxOpenConns(*clients)
	d.SetMaxIdleConns(*clients)
	accounts := 100000 * *scale
	errs := make(chan error, *clients)
	var wg sync.WaitGroup
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- client(ctx, d, *tx, accounts)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			fmt.Fprintln(os.Stderr, "baremssql:", err)
			os.Exit(1)
		}
	}
}

// client runs tx point selects on a connection of its own.
func client(ctx context.Context, d *sql.DB, tx int, accounts int64) error {
	c, err := d.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.PrepareContext(ctx, "SELECT abalance FROM pgbench_accounts WHERE aid = @p1")
	if err != nil {
		return err
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	var bal int64
	for i := 0; i < tx; i++ {
		if err := st.QueryRowContext(ctx, 1+rng.Int64N(accounts)).Scan(&bal); err != nil {
			return err
		}
	}
	return nil
}
