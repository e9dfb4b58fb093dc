package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Dataset is the data a run ran on, read as the run started: the
// parameters that size or shape it (tpcb's scale, tpcc's warehouses,
// inserts' key) and the size of each of the workload's tables. In JSON the
// parameters sit beside "tables": {"scale": 10, "tables": [...]}.
type Dataset struct {
	// Params maps a parameter to a number (int64 or float64) or a string.
	Params map[string]any
	Tables []DatasetTable
}

// DatasetTable is one table's size at the start of a run.
type DatasetTable struct {
	Name string `json:"name"`
	// Rows is exact when RowsExact, else the engine's estimate (from its
	// statistics, for large tables where counting would take long).
	Rows      int64 `json:"rows"`
	RowsExact bool  `json:"rows_exact"`
	// Bytes is the table's data, IndexBytes its indexes'; null where the
	// engine cannot say.
	Bytes      *int64 `json:"bytes"`
	IndexBytes *int64 `json:"index_bytes"`
}

// MarshalJSON writes the parameters and "tables" as one object.
func (d Dataset) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(d.Params)+1)
	for k, v := range d.Params {
		if k == "tables" {
			return nil, fmt.Errorf("dataset parameter %q clashes with the table list", k)
		}
		m[k] = v
	}
	tables := d.Tables
	if tables == nil {
		tables = []DatasetTable{}
	}
	m["tables"] = tables
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes; whole numbers come back as
// int64.
func (d *Dataset) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	d.Params, d.Tables = map[string]any{}, nil
	for k, raw := range m {
		if k == "tables" {
			if err := json.Unmarshal(raw, &d.Tables); err != nil {
				return fmt.Errorf("dataset.tables: %w", err)
			}
			continue
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("dataset.%s: %w", k, err)
		}
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				v = i
			} else if f, err := n.Float64(); err == nil {
				v = f
			}
		}
		d.Params[k] = v
	}
	return nil
}

// ParamKeys lists the parameters in name order.
func (d *Dataset) ParamKeys() []string {
	keys := make([]string, 0, len(d.Params))
	for k := range d.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ParamText writes a parameter for people: numbers in full ("1000000",
// not "1e+06").
func (d *Dataset) ParamText(k string) string {
	switch v := d.Params[k].(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	case nil:
		return "null"
	default:
		return fmt.Sprint(v)
	}
}

// Summary is the dataset on one line: its parameters, then each table's
// rows and size ("scale=10; pgbench_accounts 1000000 rows 128MB, ...").
func (d *Dataset) Summary() string {
	s := ""
	for _, k := range d.ParamKeys() {
		if s != "" {
			s += " "
		}
		v := d.ParamText(k)
		if strings.ContainsAny(v, " ;,") {
			v = strconv.Quote(v) // a value of several words stays one
		}
		s += k + "=" + v
	}
	for i, t := range d.Tables {
		if i == 0 {
			if s != "" {
				s += "; "
			}
		} else {
			s += ", "
		}
		s += t.Name + " " + t.RowsText() + " rows"
		if t.Bytes != nil {
			s += " " + HumanBytes(*t.Bytes)
		}
	}
	return s
}

// RowsText writes the rows, with "~" before an estimate.
func (t DatasetTable) RowsText() string {
	if t.RowsExact {
		return strconv.FormatInt(t.Rows, 10)
	}
	return "~" + strconv.FormatInt(t.Rows, 10)
}

// HumanBytes writes a size to three significant digits in binary units
// ("1.25 GiB", "512 B").
func HumanBytes(b int64) string {
	f := float64(b)
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if f < 1024 || u == "TiB" {
			if u == "B" {
				return strconv.FormatInt(b, 10) + " B"
			}
			return strconv.FormatFloat(f, 'f', max(0, 2-digitsBefore(f)), 64) + " " + u
		}
		f /= 1024
	}
	return ""
}

// digitsBefore is the number of digits before the decimal point of f >= 1,
// less one.
func digitsBefore(f float64) int {
	n := 0
	for f >= 10 {
		f /= 10
		n++
	}
	return n
}
