package dbgen

import (
	"strconv"
	"time"
)

// Table names one of the eight tables of clause 1.4.
type Table int

// The tables, in the order dbgen writes them.
const (
	Region Table = iota
	Nation
	Supplier
	Customer
	Part
	PartSupp
	Orders
	LineItem
)

// Tables lists every table.
var Tables = []Table{Region, Nation, Supplier, Customer, Part, PartSupp, Orders, LineItem}

var tableNames = [...]string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// Name is the table's SQL name in lower case (clause 1.4).
func (t Table) Name() string { return tableNames[t] }

// Money is an amount in cents; dbgen computes every price in cents.
type Money int64

// String formats the amount as dbgen prints it: dollars.cents.
func (m Money) String() string { return string(m.Append(nil)) }

// Append appends the String form to b.
func (m Money) Append(b []byte) []byte {
	c := int64(m)
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	b = append(b, '.', byte('0'+c%100/10), byte('0'+c%10))
	return b
}

// Float is the amount in dollars (for drivers that take decimals as floats).
func (m Money) Float() float64 { return float64(m) / 100 }

// Date is a day, counted from 1992-01-01 (STARTDATE), the first day of the
// data's calendar.
type Date int32

var startDate = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)

// dateStrings holds the text of every date the generator can produce
// (STARTDATE .. ENDDATE, clause 4.2.3).
var dateStrings = func() []string {
	s := make([]string, totalDays)
	for i := range s {
		s[i] = startDate.AddDate(0, 0, i).Format("2006-01-02")
	}
	return s
}()

// String is the date as YYYY-MM-DD.
func (d Date) String() string {
	if d >= 0 && int(d) < len(dateStrings) {
		return dateStrings[d]
	}
	return d.Time().Format("2006-01-02")
}

// Time is the date at midnight UTC.
func (d Date) Time() time.Time { return startDate.AddDate(0, 0, int(d)) }

// RegionRow is a row of REGION.
type RegionRow struct {
	RegionKey int64
	Name      string
	Comment   string
}

// NationRow is a row of NATION.
type NationRow struct {
	NationKey int64
	Name      string
	RegionKey int64
	Comment   string
}

// SupplierRow is a row of SUPPLIER.
type SupplierRow struct {
	SuppKey   int64
	Name      string
	Address   string
	NationKey int64
	Phone     string
	AcctBal   Money
	Comment   string
}

// CustomerRow is a row of CUSTOMER.
type CustomerRow struct {
	CustKey    int64
	Name       string
	Address    string
	NationKey  int64
	Phone      string
	AcctBal    Money
	MktSegment string
	Comment    string
}

// PartRow is a row of PART with its four PARTSUPP rows.
type PartRow struct {
	PartKey     int64
	Name        string
	Mfgr        string
	Brand       string
	Type        string
	Size        int64
	Container   string
	RetailPrice Money
	Comment     string
	Supps       [SuppliersPerPart]PartSuppRow
}

// PartSuppRow is a row of PARTSUPP.
type PartSuppRow struct {
	PartKey    int64
	SuppKey    int64
	AvailQty   int64
	SupplyCost Money
	Comment    string
}

// OrderRow is a row of ORDERS with its LINEITEM rows.
type OrderRow struct {
	OrderKey      int64
	CustKey       int64
	OrderStatus   byte // 'F', 'O' or 'P'
	TotalPrice    Money
	OrderDate     Date
	OrderPriority string
	Clerk         string
	ShipPriority  int64
	Comment       string
	Lines         []LineItemRow
}

// LineItemRow is a row of LINEITEM.
type LineItemRow struct {
	OrderKey      int64
	PartKey       int64
	SuppKey       int64
	LineNumber    int64
	Quantity      int64
	ExtendedPrice Money
	Discount      Money // hundredths: 0.00 .. 0.10
	Tax           Money // hundredths: 0.00 .. 0.08
	ReturnFlag    byte  // 'R', 'A' or 'N'
	LineStatus    byte  // 'O' or 'F'
	ShipDate      Date
	CommitDate    Date
	ReceiptDate   Date
	ShipInstruct  string
	ShipMode      string
	Comment       string
}
