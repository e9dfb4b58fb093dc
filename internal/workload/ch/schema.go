package ch

import (
	"fmt"
	"math/rand/v2"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

// Tables are the three tables CH-benCHmark adds to TPC-C's nine, in the
// paper's names (its supplier columns are su_, since TPC-C's stock has s_).
var Tables = []string{"supplier", "nation", "region"}

// Cardinalities of the added tables (CH-benCHmark, section 3): fixed,
// whatever the warehouses.
const (
	// Suppliers is SUPPLIER's rows: every stock row (w, i) is supplied by
	// supplier (w * i) mod 10,000, so the keys are 0 to 9,999.
	Suppliers = 10_000
	// Nations is NATION's rows: one for each character a TPC-C a-string
	// may start with (0-9, A-Z, a-z), so that the ASCII code of the first
	// character of C_STATE is a customer's nation key.
	Nations = 62
	// Regions is REGION's rows.
	Regions = 5
)

// supplierBatch is the rows of one supplier batch (a loading choice).
const supplierBatch = 1_000

// createStatements are the tables' DDL in the engine's types (the paper's
// columns; char(N) as the paper's).
func createStatements(caps db.Caps) []string {
	return []string{
		"CREATE TABLE supplier (su_suppkey int NOT NULL, su_name char(25) NOT NULL, su_address varchar(40) NOT NULL, " +
			"su_nationkey int NOT NULL, su_phone char(15) NOT NULL, su_acctbal decimal(12,2) NOT NULL, " +
			"su_comment char(101) NOT NULL, PRIMARY KEY (su_suppkey))" + caps.TableOptions,
		"CREATE TABLE nation (n_nationkey int NOT NULL, n_name char(25) NOT NULL, n_regionkey int NOT NULL, " +
			"n_comment char(152) NOT NULL, PRIMARY KEY (n_nationkey))" + caps.TableOptions,
		"CREATE TABLE region (r_regionkey int NOT NULL, r_name char(55) NOT NULL, r_comment char(152) NOT NULL, " +
			"PRIMARY KEY (r_regionkey))" + caps.TableOptions,
	}
}

// regionNames are REGION's rows, keys 1 to 5.
var regionNames = [Regions]string{"Africa", "America", "Asia", "Australia", "Europe"}

// nation is one row of NATION: its name and the key of its region.
type nation struct {
	name   string
	region int
}

// nations are NATION's rows, in the order of their keys: the ASCII codes
// of 0-9, A-Z and a-z (nationKey). The names and regions are the ones the
// queries name (Germany and Cambodia, Europe and Asia) and the other
// implementations load, so that a customer's nation, drawn from its
// C_STATE, is the same everywhere.
var nations = [Nations]nation{
	{"Australia", 4}, {"Belgium", 5}, {"Cameroon", 1}, {"Denmark", 5}, {"Ecuador", 2},
	{"France", 5}, {"Germany", 5}, {"Hungary", 5}, {"Italy", 5}, {"Japan", 3},
	{"Kenya", 1}, {"Lithuania", 5}, {"Mexico", 2}, {"Netherlands", 5}, {"Oman", 1},
	{"Portugal", 5}, {"Qatar", 1}, {"Rwanda", 1}, {"Serbia", 5}, {"Togo", 1},
	{"United States", 2}, {"Vietnam", 3}, {"Singapore", 3}, {"Cambodia", 3}, {"Yemen", 1},
	{"Zimbabwe", 1}, {"Argentina", 2}, {"Bolivia", 2}, {"Canada", 2}, {"Dominican Republic", 2},
	{"Egypt", 1}, {"Finland", 5}, {"Ghana", 1}, {"Haiti", 2}, {"India", 3},
	{"Jamaica", 4}, {"Kazakhstan", 3}, {"Luxembourg", 5}, {"Morocco", 1}, {"Norway", 5},
	{"Poland", 5}, {"Peru", 2}, {"Nicaragua", 2}, {"Romania", 5}, {"South Africa", 1},
	{"Thailand", 3}, {"United Kingdom", 5}, {"Venezuela", 2}, {"Liechtenstein", 5}, {"Austria", 5},
	{"Laos", 3}, {"Zambia", 1}, {"Switzerland", 5}, {"China", 3}, {"Papua New Guinea", 4},
	{"East Timor", 4}, {"Bulgaria", 5}, {"Brazil", 2}, {"Albania", 5}, {"Andorra", 5},
	{"Belize", 2}, {"Botswana", 1},
}

// nationKey is the key of the i-th nation (0-based): the ASCII code of the
// i-th character of 0-9A-Za-z, the alphabet of TPC-C's a-strings.
func nationKey(i int) int { return int(datagen.Alphanumeric[i]) }

// Streams of the loader's random numbers, one per table (and per batch),
// apart from tpcc's.
const (
	streamRegion = iota + 0xc4001
	streamNation
	streamSupplier
)

// loadTables returns the rows of the added tables as batches deterministic
// from seed. The value domains are TPC-H's (clause 4.2.3) where the paper
// takes TPC-H's tables as they are: S_NAME "Supplier#" and the key in 9
// digits, S_ADDRESS 10 to 40 characters, S_PHONE the nation's country code
// (its number + 10) and 3, 3 and 4 digits, S_ACCTBAL -999.99 to 9,999.99,
// S_COMMENT 25 to 100 characters, N_COMMENT 31 to 114, R_COMMENT 31 to 115;
// the nation of a supplier is uniform over the 62.
func loadTables(seed uint64) []workload.Table {
	return []workload.Table{
		{Name: "region", Columns: []string{"r_regionkey", "r_name", "r_comment"}, Rows: Regions, Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				g := newGen(seed, streamRegion)
				for i, name := range regionNames {
					dst = append(dst, []any{i + 1, name, g.astr(31, 115)})
				}
				return dst
			}},
		{Name: "nation", Columns: []string{"n_nationkey", "n_name", "n_regionkey", "n_comment"}, Rows: Nations, Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				g := newGen(seed, streamNation)
				for i, n := range nations {
					dst = append(dst, []any{nationKey(i), n.name, n.region, g.astr(31, 114)})
				}
				return dst
			}},
		{Name: "supplier", Columns: []string{"su_suppkey", "su_name", "su_address", "su_nationkey", "su_phone", "su_acctbal", "su_comment"},
			Rows: Suppliers, Batches: Suppliers / supplierBatch,
			Batch: func(b int, dst [][]any) [][]any {
				g := newGen(seed, streamSupplier, uint64(b))
				for k := b * supplierBatch; k < (b+1)*supplierBatch; k++ {
					n := g.r.IntN(Nations)
					phone := fmt.Sprintf("%02d-%03d-%03d-%04d", n+10, g.r.IntN(900)+100, g.r.IntN(900)+100, g.r.IntN(10_000))
					cents := g.r.IntN(1_099_999) - 99_999 // -999.99 .. 9,999.99
					dst = append(dst, []any{k, fmt.Sprintf("Supplier#%09d", k), g.astr(10, 40), nationKey(n), phone,
						float64(cents) / 100, g.astr(25, 100)})
				}
				return dst
			}},
	}
}

// gen is one batch's random source and scratch buffer.
type gen struct {
	r   *rand.Rand
	buf []byte
}

func newGen(seed uint64, streams ...uint64) *gen {
	return &gen{r: datagen.NewRand(seed, streams...), buf: make([]byte, 0, 128)}
}

// astr is a random a-string of lo..hi characters (TPC-C clause 4.3.2.2).
func (g *gen) astr(lo, hi int) string {
	g.buf = datagen.RandString(g.r, g.buf[:0], lo+g.r.IntN(hi-lo+1))
	return string(g.buf)
}
