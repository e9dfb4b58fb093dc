package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dbharness/dbharness/internal/results"
)

// planOutline is a plan's shape cut down to its node types and the
// relations and indexes they read, as a DBA reads a plan: "Update on acc >
// Index Scan using acc_pkey on acc", "Hash Join [Seq Scan on a; Hash > Seq
// Scan on b]" (a node with one input is followed by " > " and it, one with
// several lists them in brackets). It reads PostgreSQL's shapes ("Node
// (attributes) [inputs]") and MySQL's (EXPLAIN FORMAT=JSON, normalized);
// any other shape (SQLite's plan text is already short) is returned as it
// is.
func planOutline(shape string) string {
	shape = strings.TrimSpace(shape)
	if strings.HasPrefix(shape, "{") {
		if s, ok := mysqlOutline(shape); ok {
			return s
		}
		return shape
	}
	p := &shapeParser{s: shape}
	out := p.node()
	if p.bad || p.i != len(p.s) || out == "" {
		return shape
	}
	return out
}

// shapeParser reads PostgreSQL's normalized plan shapes (NormalizePostgres
// in internal/db/postgres): Node Type (attribute, ...) [input; ...].
type shapeParser struct {
	s   string
	i   int
	bad bool
}

func (p *shapeParser) node() string {
	start := p.i
	for p.i < len(p.s) && !strings.HasPrefix(p.s[p.i:], " (") && !strings.HasPrefix(p.s[p.i:], " [") &&
		p.s[p.i] != ';' && p.s[p.i] != ']' {
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" {
		p.bad = true
		return ""
	}
	var on, using string
	if strings.HasPrefix(p.s[p.i:], " (") {
		p.i += 2
		end := strings.IndexByte(p.s[p.i:], ')')
		if end < 0 {
			p.bad = true
			return ""
		}
		for _, a := range strings.Split(p.s[p.i:p.i+end], ", ") {
			switch {
			case strings.ContainsAny(a, "=?"): // a condition: not PostgreSQL's shape (SQLite's plan text)
				p.bad = true
				return ""
			case strings.HasPrefix(a, "on "):
				on = a
			case strings.HasPrefix(a, "using "):
				using = a
			case name == "ModifyTable" && (a == "Insert" || a == "Update" || a == "Delete" || a == "Merge"):
				name = a // as EXPLAIN prints it: "Update on acc"
			}
		}
		p.i += end + 1
	}
	out := name
	for _, a := range []string{using, on} {
		if a != "" {
			out += " " + a
		}
	}
	if !strings.HasPrefix(p.s[p.i:], " [") {
		return out
	}
	p.i += 2
	var kids []string
	for {
		kids = append(kids, p.node())
		if p.bad {
			return ""
		}
		switch {
		case strings.HasPrefix(p.s[p.i:], "; "):
			p.i += 2
			continue
		case strings.HasPrefix(p.s[p.i:], "]"):
			p.i++
		default:
			p.bad = true
			return ""
		}
		break
	}
	if len(kids) == 1 {
		return out + " > " + kids[0]
	}
	return out + " [" + strings.Join(kids, "; ") + "]"
}

// mysqlOutline lists the tables of a MySQL or MariaDB plan in plan order,
// each with its access type and key ("ALL on acc" is a full scan, "ref
// using acc_v on acc" a lookup), after the operations around them
// (filesort, temporary table).
func mysqlOutline(shape string) (string, bool) {
	var v any
	if err := json.Unmarshal([]byte(shape), &v); err != nil {
		return "", false
	}
	var parts []string
	var walk func(x any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			if name, ok := t["table_name"].(string); ok {
				s := fmt.Sprint(t["access_type"])
				if t["access_type"] == nil {
					s = "access"
				}
				if k, ok := t["key"].(string); ok && k != "" {
					s += " using " + k
				}
				parts = append(parts, s+" on "+name)
			}
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				switch k {
				case "filesort", "temporary_table", "read_sorted_file", "duplicates_removal":
					parts = append(parts, strings.ReplaceAll(k, "_", " "))
				}
				walk(t[k])
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "; "), true
}

// planChangeOutline is a change of plan during the run as the two plans'
// outlines, "Seq Scan on acc -> Index Scan using acc_v on acc", with the
// fingerprints after them; the plan before is the statement's plan of
// that fingerprint.
func planChangeOutline(p results.StatementPlans, c results.PlanChange) string {
	before := "plan " + c.Before
	for _, v := range p.Plans {
		if v.Fingerprint == c.Before {
			before = planOutline(v.Shape)
			break
		}
	}
	return fmt.Sprintf("%s -> %s (%s -> %s)", before, planOutline(c.AfterShape), c.Before, c.After)
}
