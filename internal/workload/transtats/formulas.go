package transtats

import (
	"fmt"
	"sort"
	"time"
)

// Base is tran_begin of rows 1 to 99 (i div 100 = 0).
var Base = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// Row is one row of tran_stats.
type Row struct {
	ServerConfig  string
	Users         int32
	CPUs          int16
	ThreadName    string
	TranCount     int32
	TranType      string
	TranStatus    string
	TranBegin     time.Time
	TranEnd       time.Time
	ResultsetSize int16
	Filler        string
}

var (
	tranTypes    = [3]string{"READ-ONLY", "WRITE-ONLY", "READ-WRITE"}
	tranStatuses = [3]string{"SUCCESS", "FAILURE", "ROLLBACK"}
)

// RowAt is row i (1-based) as WORKLOADS.md defines it.
func RowAt(i int64) Row {
	begin := Base.Add(time.Duration(i/100) * time.Second)
	return Row{
		ServerConfig:  fmt.Sprintf("X580 G%02d", i%40),
		Users:         int32((i%5 + 1) * 10),
		CPUs:          int16((i%8 + 1) * 10),
		ThreadName:    fmt.Sprintf("VC%d", i%100),
		TranCount:     int32(i),
		TranType:      tranTypes[i%3],
		TranStatus:    tranStatuses[i%3],
		TranBegin:     begin,
		TranEnd:       begin.Add(time.Duration(i%50) * time.Second),
		ResultsetSize: int16(i % 100),
		Filler:        "abc",
	}
}

// Values is the row in the column order of Columns.
func (r Row) Values() []any {
	return []any{r.ServerConfig, r.Users, r.CPUs, r.ThreadName, r.TranCount, r.TranType, r.TranStatus,
		r.TranBegin, r.TranEnd, r.ResultsetSize, r.Filler}
}

// Columns of tran_stats, in order.
var Columns = []string{"server_config", "users", "cpus", "thread_name", "tran_count", "tran_type", "tran_status",
	"tran_begin", "tran_end", "resultset_size", "filler"}

// Dimension is one dimension table: its value column and the distinct
// values present in rows 1..n, sorted (strings by byte order, numbers
// numerically), which is the order their identities are assigned in.
type Dimension struct {
	Table, Column, SQLType string
	// value returns row i's value.
	value func(r Row) any
}

// Dimensions are the six dimension tables, in the order of the star join.
var Dimensions = []Dimension{
	{"dim_server_config", "server_config", "varchar(100)", func(r Row) any { return r.ServerConfig }},
	{"dim_thread_name", "thread_name", "varchar(20)", func(r Row) any { return r.ThreadName }},
	{"dim_tran_type", "tran_type", "varchar(20)", func(r Row) any { return r.TranType }},
	{"dim_tran_status", "tran_status", "varchar(20)", func(r Row) any { return r.TranStatus }},
	{"dim_users", "users", "int", func(r Row) any { return r.Users }},
	{"dim_cpus", "cpus", "smallint", func(r Row) any { return r.CPUs }},
}

// Values returns the distinct values of the dimension in rows 1..n,
// sorted. Every value appears within the first 600 rows (the period of all
// the formulas together), so at most 600 rows are looked at.
func (d Dimension) Values(n int64) []any {
	seen := map[any]bool{}
	var vals []any
	for i := int64(1); i <= min(n, Period); i++ {
		v := d.value(RowAt(i))
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	sort.Slice(vals, func(a, b int) bool {
		switch x := vals[a].(type) {
		case string:
			return x < vals[b].(string)
		case int32:
			return x < vals[b].(int32)
		case int16:
			return x < vals[b].(int16)
		}
		return false
	})
	return vals
}

// Period is the least common multiple of the moduli of the six dimension
// columns (40, 100, 3, 3, 5, 8): row i's six values depend on i mod 600
// only, and different residues give different combinations.
const Period = 600

// StarResult is what the star query returns for n rows: the number of
// (six-id) groups and the number of fact rows joined.
func StarResult(n int64) (groups, rows int64) {
	return min(n, Period), n
}

// Averages are, per server_config, the count and sum of resultset_size over
// rows 1..n: a row is at or below its server_config's average when
// resultset_size * count <= sum.
type Averages struct {
	count, sum [40]int64
}

// NewAverages computes the per-server_config counts and sums for n rows.
func NewAverages(n int64) *Averages {
	a := &Averages{}
	// Rows with i mod 40 = s have i mod 100 cycling with period 200 in i
	// (5 rows), so whole cycles of 200 rows are added at once.
	full := n / 200
	for i := int64(1); i <= 200; i++ {
		a.count[i%40] += full
		a.sum[i%40] += full * (i % 100)
	}
	for i := full*200 + 1; i <= n; i++ {
		a.count[i%40]++
		a.sum[i%40] += i % 100
	}
	return a
}

// WindowSeconds is the number of possible windows for n rows: window w
// (0-based) starts at Base + w seconds and holds rows 100w..100w+99.
func WindowSeconds(n int64) int64 { return n/100 + 1 }

// WindowResult is what the window query returns for window w: the number
// of groups (of the six value columns) among the window's rows at or below
// their server_config's average resultset_size, and the sum of their
// tran_count.
func (a *Averages) WindowResult(n, w int64) (groups, sumTranCount int64) {
	seen := map[[6]any]bool{}
	for i := max(1, 100*w); i <= min(n, 100*w+99); i++ {
		s := i % 40
		if (i%100)*a.count[s] > a.sum[s] {
			continue
		}
		r := RowAt(i)
		k := [6]any{r.ServerConfig, r.ThreadName, r.TranType, r.TranStatus, r.Users, r.CPUs}
		if !seen[k] {
			seen[k] = true
			groups++
		}
		sumTranCount += i
	}
	return groups, sumTranCount
}
