package tpch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

// The qualification answers (clause 2.3) are the result of each query
// with its validation parameters (Qualification) on the data of scale
// factor 1. TPC's kit ships them in dbgen's answers directory, one file
// per query (q1.out ... q22.out): a header line of column names, then one
// line per row, the values separated by '|' and padded with spaces. They
// are not part of dbharness: check tpch --answers DIR reads them from the
// user's copy of the kit.

// ReadAnswerFile reads one of dbgen's answer files: the rows under the
// header, each value with its padding trimmed. The file's columns must be
// as many as the query's.
func ReadAnswerFile(path string, q int) (Answer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := len(queries[q].kinds)
	var out Answer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			if n := len(strings.Split(s, "|")); n != want {
				return nil, fmt.Errorf("%s: the header names %d columns, Q%d has %d: not dbgen's answer file for Q%d", path, n, q, want, q)
			}
			continue
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		vals := strings.Split(s, "|")
		if len(vals) != want {
			return nil, fmt.Errorf("%s line %d: %d values, Q%d has %d columns", path, line, len(vals), q, want)
		}
		for i := range vals {
			vals[i] = strings.TrimSpace(vals[i])
		}
		out = append(out, vals)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s is empty: not dbgen's answer file for Q%d", path, q)
	}
	return out, nil
}

// CheckAnswersDir returns the error that makes dir unusable as the
// answers directory (nil when it holds q1.out to q22.out), so that check
// refuses a wrong path before it runs anything.
func CheckAnswersDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--answers %s: no such directory", dir)
		}
		return fmt.Errorf("--answers %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("--answers %s is a file: give the directory that holds dbgen's q1.out to q22.out", dir)
	}
	var missing []string
	for q := 1; q <= 22; q++ {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("q%d.out", q))); err != nil {
			missing = append(missing, fmt.Sprintf("q%d.out", q))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("--answers %s lacks %s: give the directory of dbgen's answer files (answers/ in TPC's kit)", dir, strings.Join(missing, ", "))
	}
	return nil
}

// QualificationChecks runs each of the 22 queries with its validation
// parameters and compares its rows with the answer file in dir under the
// rules of clause 2.1.3.5 (CompareAnswers). The answers are scale factor
// 1's: at any other scale each query's result is Skipped, saying so.
func QualificationChecks(ctx context.Context, conn db.Conn, caps db.Caps, sf float64, dir string) ([]workload.CheckResult, error) {
	if sf != 1 {
		return []workload.CheckResult{{Name: "the qualification answers (clause 2.3)", Skipped: true,
			Detail: fmt.Sprintf("the answers are scale factor 1's, this database holds SF %g", sf)}}, nil
	}
	return AnswerFileChecks(ctx, conn, caps, sf, dir)
}

// AnswerFileChecks is QualificationChecks without the scale factor's
// gate: each query with its validation parameters at sf against the
// answer file in dir.
func AnswerFileChecks(ctx context.Context, conn db.Conn, caps db.Caps, sf float64, dir string) ([]workload.CheckResult, error) {
	var out []workload.CheckResult
	for q := 1; q <= 22; q++ {
		r := workload.CheckResult{Name: fmt.Sprintf("Q%d's qualification answer (clause 2.3)", q)}
		want, err := ReadAnswerFile(filepath.Join(dir, fmt.Sprintf("q%d.out", q)), q)
		if err != nil {
			return out, err
		}
		got, err := RunAnswer(ctx, conn, caps, Qualification(q, sf))
		if err != nil {
			return out, err
		}
		for _, row := range got {
			for i := range row {
				row[i] = strings.TrimSpace(row[i])
			}
		}
		if err := CompareAnswers(q, want, got); err != nil {
			r.Detail = fmt.Sprintf("differs from q%d.out: %v (the file's value first)", q, err)
		} else {
			r.Pass = true
			rows := "rows"
			if len(got) == 1 {
				rows = "row"
			}
			r.Detail = fmt.Sprintf("%d %s as q%d.out", len(got), rows, q)
		}
		out = append(out, r)
	}
	return out, nil
}
