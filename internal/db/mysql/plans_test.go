package mysql_test

import (
	"testing"

	"github.com/dbharness/dbharness/internal/db/mysql"
)

func TestTheNormalizerDropsEstimates(t *testing.T) {
	my := `{"query_block": {"select_id": 1, "cost_info": {"query_cost": "1.00"}, "table": {"table_name": "acc",
		"access_type": "const", "possible_keys": ["PRIMARY"], "key": "PRIMARY", "key_length": "4", "used_key_parts": ["aid"],
		"ref": ["const"], "rows": 1, "filtered": 100, "attached_condition": "acc.aid = 5"}}}`
	got, err := mysql.NormalizeMySQL([]byte(my))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"query_block":{"select_id":1,"table":{"access_type":"const","key":"PRIMARY","table_name":"acc","used_key_parts":["aid"]}}}`
	if got != want {
		t.Errorf("mysql:\n got %s\nwant %s", got, want)
	}
}
