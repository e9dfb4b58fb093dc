package script

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// load writes the scripts into a directory and loads them as --script
// would, with -D defines.
func load(t *testing.T, defines []string, scripts ...string) (*Workload, error) {
	t.Helper()
	w := &Workload{Defines: defines}
	return w, loadInto(t, w, scripts...)
}

// loadInto writes the scripts into a directory and loads them into w.
func loadInto(t *testing.T, w *Workload, scripts ...string) error {
	t.Helper()
	dir := t.TempDir()
	for i, src := range scripts {
		p := filepath.Join(dir, string(rune('a'+i))+".sql")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		w.Scripts = append(w.Scripts, p)
	}
	return w.Load()
}

func TestVariablesNothingSetsAreCaughtBeforeTheRun(t *testing.T) {
	for _, c := range []struct {
		name    string
		scripts []string
		defines []string
		want    string // "" for no error; else the error after the directory
	}{
		{"a variable read in SQL", []string{"SELECT 1;\n  SELECT :undefined;\n"}, nil, "a.sql:2:10: undefined variable :undefined"},
		{"a variable read by \\set", []string{"\\set x :y + 1\n"}, nil, "a.sql:1:8: undefined variable :y"},
		{"a variable read by \\if", []string{"\\if :flag\n\\endif\n"}, nil, "a.sql:1:5: undefined variable :flag"},
		{"a variable read by \\sleep", []string{"\\sleep :ms ms\n"}, nil, "a.sql:1:8: undefined variable :ms"},
		{"a variable in a continued \\set", []string{"\\set x 1 + \\\n  :nope\n"}, nil, "a.sql:2:3: undefined variable :nope"},
		{"pgbench's built-ins", []string{"SELECT :scale, :client_id, :random_seed, :default_seed;\n"}, nil, ""},
		{"a -D define", []string{"SELECT :hot;\n"}, []string{"hot=7"}, ""},
		{"a \\set after the use", []string{"SELECT :a;\n\\set a 1\n"}, nil, ""},
		{"a \\set in another script", []string{"SELECT :a;\n", "\\set a 1\n"}, nil, ""},
		{"a \\gset column", []string{"SELECT 1 AS one, count(*) FROM t \\gset p_\nSELECT :p_one, :p_count;\n"}, nil, ""},
		{"a \\gset column under another name", []string{"SELECT 1 AS one \\gset p_\nSELECT :one;\n"}, nil, "a.sql:2:8: undefined variable :one"},
		{"a \\gset of unnamed columns with its prefix", []string{"SELECT * FROM t \\gset p_\nSELECT :p_anything;\n"}, nil, ""},
		{"a \\gset of unnamed columns with another prefix", []string{"SELECT * FROM t \\gset p_\nSELECT :q;\n"}, nil, "a.sql:2:8: undefined variable :q"},
		{"a name in quotes is text", []string{"SELECT ':nope', 'a:b';\n"}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, c.defines, c.scripts...)
			if c.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load accepted the script, want %q", c.want)
			}
			if _, ok := err.(*ParseError); !ok {
				t.Errorf("error of type %T", err)
			}
			if msg := filepath.Base(err.Error()); !strings.HasPrefix(msg, c.want) {
				t.Fatalf("Load = %q, want %q", msg, c.want)
			}
		})
	}
}

// Names the \gset of a statement sets must be PostgreSQL's own column
// names, or the check above would reject good scripts.
func TestOutputNamesAreThoseOfPostgreSQL(t *testing.T) {
	ctx := context.Background()
	_, conn := pgWith(t, "dbh_sc_columns", `CREATE TABLE t (aid int, "Mixed" int, abalance int, note text)`)
	for _, c := range []struct {
		sql   string
		named bool // outputNames must name the columns
	}{
		{"SELECT abalance FROM t WHERE aid = 1", true},
		{"SELECT aid, t.abalance, \"Mixed\" FROM t", true},
		{"SELECT count(*), max(aid) AS hi, min(aid) lo FROM t", true},
		{"SELECT DISTINCT aid FROM t", true},
		{"SELECT DISTINCT ON (aid) aid, note FROM t ORDER BY aid", true},
		{"SELECT ALL Aid FROM t", true},
		{"SELECT 1 AS one, 2 AS two", true},
		{"SELECT coalesce(max(aid), 0) FROM t", true},
		{"SELECT current_timestamp, current_date", true},
		{"SELECT abalance AS \"Bal\" FROM t", true},
		{"WITH x AS (SELECT aid FROM t) SELECT aid AS a FROM x", true},
		{"UPDATE t SET abalance = abalance + 1 WHERE aid = 1 RETURNING abalance, aid * 2 AS twice", true},
		{"SELECT E'it\\'s, a' AS e, 'x'' y' AS s, $$a, b$$ AS d, /* , */ 1 AS \"x\"\"y\"", true},
		{"SELECT $q$,$q$ AS d, 2 AS e -- , 3 AS f", true},
		{"SHOW work_mem", true},
		{"SELECT *, aid FROM t", false},
		{"SELECT 1", true},
		{"SELECT 'x', 2.5 AS d", true},
		{"SELECT aid::text FROM t", false},
		{"SELECT CAST(aid AS text) FROM t", false},
		{"SELECT trim(note) FROM t", false},
		{"SELECT aid + 1 FROM t", false},
		{"SELECT CASE WHEN aid > 1 THEN 1 END FROM t", false},
		{"SELECT null, true", false},
		{"SELECT aid IS NULL FROM t", false},
		{"SELECT count(*) FILTER (WHERE aid > 1) FROM t", false},
		{"SELECT t.* FROM t", false},
		{"VALUES (1, 2)", false},
	} {
		names, ok := outputNames(c.sql)
		if ok != c.named {
			t.Errorf("outputNames(%q) = %v, %v; want named = %v", c.sql, names, ok, c.named)
		}
		if !ok {
			continue
		}
		rows, err := conn.Query(ctx, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		var pg []string
		for _, f := range rows.FieldDescriptions() {
			pg = append(pg, f.Name)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if !reflect.DeepEqual(names, pg) {
			t.Errorf("outputNames(%q) = %q, PostgreSQL names %q", c.sql, names, pg)
		}
	}
	if names, ok := outputNames("INSERT INTO t VALUES (1)"); !ok || len(names) != 0 {
		t.Errorf("an INSERT without RETURNING: %v, %v", names, ok)
	}
}
