package results

import (
	"encoding/json"
	"testing"
)

func TestDatasetRoundTripsWithItsParametersBesideTheTables(t *testing.T) {
	b := int64(13 << 20)
	d := Dataset{Params: map[string]any{"scale": int64(10), "key": "uuid-random", "rows": int64(1000000)},
		Tables: []DatasetTable{{Name: "pgbench_accounts", Rows: 1000000, RowsExact: false, Bytes: &b}}}
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var flat map[string]any
	if err := json.Unmarshal(js, &flat); err != nil {
		t.Fatal(err)
	}
	if flat["scale"] != 10.0 || flat["key"] != "uuid-random" || flat["tables"] == nil {
		t.Fatalf("JSON %s does not put the parameters beside the tables", js)
	}
	var back Dataset
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.ParamText("scale") != "10" || back.ParamText("rows") != "1000000" || back.ParamText("key") != "uuid-random" {
		t.Errorf("parameters read back as %v", back.Params)
	}
	if len(back.Tables) != 1 || back.Tables[0].IndexBytes != nil || *back.Tables[0].Bytes != b || back.Tables[0].RowsText() != "~1000000" {
		t.Errorf("tables read back as %+v", back.Tables)
	}
	if s := back.Summary(); s != "key=uuid-random rows=1000000 scale=10; pgbench_accounts ~1000000 rows 13.0 MiB" {
		t.Errorf("summary %q", s)
	}
	if _, err := json.Marshal(Dataset{Params: map[string]any{"tables": 1}}); err == nil {
		t.Error("a parameter named tables was written over the table list")
	}
}

func TestPostgresSettingsSavedAsPagesReadBackAsSizes(t *testing.T) {
	// Runs saved before settings were normalised glued pg_settings' value
	// to its unit: 16384 pages of 8kB read "163848kB".
	var e EngineInfo
	if err := json.Unmarshal([]byte(`{"name":"postgresql","version":"15.20","settings":{"shared_buffers":"163848kB","effective_cache_size":"5242888kB","wal_buffers":"5128kB","work_mem":"4096kB"}}`), &e); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"shared_buffers": "128MB", "effective_cache_size": "4GB", "wal_buffers": "4MB", "work_mem": "4096kB"} {
		if e.Settings[k] != want {
			t.Errorf("%s = %q, want %q", k, e.Settings[k], want)
		}
	}
	if n := e.Normalized["shared_buffers"]; n.Value != 128<<20 || n.Unit != "bytes" {
		t.Errorf("shared_buffers normalised to %+v", n)
	}
	// A run saved with normalised settings is read as saved.
	var now EngineInfo
	if err := json.Unmarshal([]byte(`{"name":"postgresql","settings":{"shared_buffers":"128MB"},"settings_normalized":{"shared_buffers":{"value":134217728,"unit":"bytes"}}}`), &now); err != nil {
		t.Fatal(err)
	}
	if now.Settings["shared_buffers"] != "128MB" {
		t.Errorf("a normalised run's setting changed to %q", now.Settings["shared_buffers"])
	}
}

func TestHumanBytes(t *testing.T) {
	for b, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.00 KiB", 13 << 20: "13.0 MiB", 1536 << 20: "1.50 GiB", 200 << 30: "200 GiB"} {
		if got := HumanBytes(b); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", b, got, want)
		}
	}
}
