package tpch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// The 22 queries of clause 2.4, written once. A text names its
// substitution parameters :name (Params gives their SQL literals) and
// marks the two places where the engines' dialects differ beyond what a
// literal covers: {year:EXPR} is the year of a date expression, and
// {limit:N} keeps the first N rows of the ordered result. Dates come as
// literals in the dialect (db.Caps.DateConst), and the date arithmetic of
// the specification's texts (DATE ':1' + INTERVAL '3' MONTH) is done when
// the parameters are drawn, so that the texts need no interval syntax;
// clause 2.2.3.3 lets a query's text vary thus where the dialect requires.
// Q15's view is written as the common table expression of the
// specification's variant (Appendix B), which every engine runs without
// creating and dropping a view within the stream.
//
// Kinds names each output column's comparison rule of clause 2.1.3.5:
// 'e' a singleton value or a count (exact), 's' a sum (within 100), 'a'
// an average or a ratio (within 1% after rounding to 1/100).
type query struct {
	text  string
	kinds string
}

var queries = [23]query{
	1: {`select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price,
 sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
 sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
 avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc, count(*) as count_order
from lineitem
where l_shipdate <= :date
group by l_returnflag, l_linestatus
order by l_returnflag, l_linestatus`, "eessssaaae"},

	2: {`select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
from part, supplier, partsupp, nation, region
where p_partkey = ps_partkey and s_suppkey = ps_suppkey and p_size = :size and p_type like :type
 and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = :region
 and ps_supplycost = (
  select min(ps_supplycost) from partsupp, supplier, nation, region
  where p_partkey = ps_partkey and s_suppkey = ps_suppkey and s_nationkey = n_nationkey
   and n_regionkey = r_regionkey and r_name = :region)
order by s_acctbal desc, n_name, s_name, p_partkey{limit:100}`, "eeeeeeee"},

	3: {`select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate, o_shippriority
from customer, orders, lineitem
where c_mktsegment = :segment and c_custkey = o_custkey and l_orderkey = o_orderkey
 and o_orderdate < :date and l_shipdate > :date
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate{limit:10}`, "esee"},

	4: {`select o_orderpriority, count(*) as order_count
from orders
where o_orderdate >= :date and o_orderdate < :date_end
 and exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)
group by o_orderpriority
order by o_orderpriority`, "ee"},

	5: {`select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey
 and c_nationkey = s_nationkey and s_nationkey = n_nationkey and n_regionkey = r_regionkey
 and r_name = :region and o_orderdate >= :date and o_orderdate < :date_end
group by n_name
order by revenue desc`, "es"},

	6: {`select sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= :date and l_shipdate < :date_end
 and l_discount between :discount_lo and :discount_hi and l_quantity < :quantity`, "s"},

	7: {`select supp_nation, cust_nation, l_year, sum(volume) as revenue
from (
 select n1.n_name as supp_nation, n2.n_name as cust_nation, {year:l_shipdate} as l_year,
  l_extendedprice * (1 - l_discount) as volume
 from supplier, lineitem, orders, customer, nation n1, nation n2
 where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey
  and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey
  and ((n1.n_name = :nation1 and n2.n_name = :nation2) or (n1.n_name = :nation2 and n2.n_name = :nation1))
  and l_shipdate between :date_lo and :date_hi) as shipping
group by supp_nation, cust_nation, l_year
order by supp_nation, cust_nation, l_year`, "eees"},

	8: {`select o_year, sum(case when nation = :nation then volume else 0 end) / sum(volume) as mkt_share
from (
 select {year:o_orderdate} as o_year, l_extendedprice * (1 - l_discount) as volume, n2.n_name as nation
 from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
 where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey and o_custkey = c_custkey
  and c_nationkey = n1.n_nationkey and n1.n_regionkey = r_regionkey and r_name = :region
  and s_nationkey = n2.n_nationkey and o_orderdate between :date_lo and :date_hi and p_type = :type) as all_nations
group by o_year
order by o_year`, "ea"},

	9: {`select nation, o_year, sum(amount) as sum_profit
from (
 select n_name as nation, {year:o_orderdate} as o_year,
  l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
 from part, supplier, lineitem, partsupp, orders, nation
 where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey and p_partkey = l_partkey
  and o_orderkey = l_orderkey and s_nationkey = n_nationkey and p_name like :color) as profit
group by nation, o_year
order by nation, o_year desc`, "ees"},

	10: {`select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal, n_name,
 c_address, c_phone, c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate >= :date and o_orderdate < :date_end
 and l_returnflag = 'R' and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
order by revenue desc{limit:20}`, "eeseeeee"},

	11: {`select ps_partkey, sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = :nation
group by ps_partkey
having sum(ps_supplycost * ps_availqty) > (
 select sum(ps_supplycost * ps_availqty) * :fraction
 from partsupp, supplier, nation
 where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = :nation)
order by value desc`, "es"},

	12: {`select l_shipmode,
 sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1 else 0 end) as high_line_count,
 sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1 else 0 end) as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey and l_shipmode in (:shipmode1, :shipmode2)
 and l_commitdate < l_receiptdate and l_shipdate < l_commitdate
 and l_receiptdate >= :date and l_receiptdate < :date_end
group by l_shipmode
order by l_shipmode`, "eee"},

	13: {`select c_count, count(*) as custdist
from (
 select c_custkey, count(o_orderkey) as c_count
 from customer left outer join orders on c_custkey = o_custkey and o_comment not like :pattern
 group by c_custkey) as c_orders
group by c_count
order by custdist desc, c_count desc`, "ee"},

	14: {`select 100.00 * sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0 end)
 / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey and l_shipdate >= :date and l_shipdate < :date_end`, "a"},

	15: {`with revenue0 as (
 select l_suppkey as supplier_no, sum(l_extendedprice * (1 - l_discount)) as total_revenue
 from lineitem
 where l_shipdate >= :date and l_shipdate < :date_end
 group by l_suppkey)
select s_suppkey, s_name, s_address, s_phone, total_revenue
from supplier, revenue0
where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue0)
order by s_suppkey`, "eeees"},

	16: {`select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt
from partsupp, part
where p_partkey = ps_partkey and p_brand <> :brand and p_type not like :type
 and p_size in (:size1, :size2, :size3, :size4, :size5, :size6, :size7, :size8)
 and ps_suppkey not in (select s_suppkey from supplier where s_comment like '%Customer%Complaints%')
group by p_brand, p_type, p_size
order by supplier_cnt desc, p_brand, p_type, p_size`, "eeee"},

	17: {`select sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part
where p_partkey = l_partkey and p_brand = :brand and p_container = :container
 and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)`, "s"},

	18: {`select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity) as sum_qty
from customer, orders, lineitem
where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > :quantity)
 and c_custkey = o_custkey and o_orderkey = l_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
order by o_totalprice desc, o_orderdate{limit:100}`, "eeeees"},

	19: {`select sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where (p_partkey = l_partkey and p_brand = :brand1
  and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
  and l_quantity >= :quantity1 and l_quantity <= :quantity1_hi and p_size between 1 and 5
  and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
 or (p_partkey = l_partkey and p_brand = :brand2
  and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
  and l_quantity >= :quantity2 and l_quantity <= :quantity2_hi and p_size between 1 and 10
  and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
 or (p_partkey = l_partkey and p_brand = :brand3
  and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
  and l_quantity >= :quantity3 and l_quantity <= :quantity3_hi and p_size between 1 and 15
  and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')`, "s"},

	20: {`select s_name, s_address
from supplier, nation
where s_suppkey in (
  select ps_suppkey from partsupp
  where ps_partkey in (select p_partkey from part where p_name like :color)
   and ps_availqty > (
    select 0.5 * sum(l_quantity) from lineitem
    where l_partkey = ps_partkey and l_suppkey = ps_suppkey and l_shipdate >= :date and l_shipdate < :date_end))
 and s_nationkey = n_nationkey and n_name = :nation
order by s_name`, "ee"},

	21: {`select s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F'
 and l1.l_receiptdate > l1.l_commitdate
 and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey)
 and not exists (
  select * from lineitem l3
  where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey and l3.l_receiptdate > l3.l_commitdate)
 and s_nationkey = n_nationkey and n_name = :nation
group by s_name
order by numwait desc, s_name{limit:100}`, "ee"},

	22: {`select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal
from (
 select substring(c_phone, 1, 2) as cntrycode, c_acctbal
 from customer
 where substring(c_phone, 1, 2) in (:code1, :code2, :code3, :code4, :code5, :code6, :code7)
  and c_acctbal > (
   select avg(c_acctbal) from customer
   where c_acctbal > 0.00 and substring(c_phone, 1, 2) in (:code1, :code2, :code3, :code4, :code5, :code6, :code7))
  and not exists (select * from orders where o_custkey = c_custkey)) as custsale
group by cntrycode
order by cntrycode`, "ees"},
}

var (
	paramRE   = regexp.MustCompile(`:[a-z][a-z0-9_]*`)
	dialectRE = regexp.MustCompile(`\{(year|limit):([^}]*)\}`)
)

// Params are a query's substitution parameters, as SQL literals of the
// engine's dialect, by name.
type Params map[string]string

// Text is query q (1..22) in the dialect of caps with parameters p. A
// parameter the text names and p lacks is a programmer's error.
func Text(q int, caps db.Caps, p Params) string {
	s := dialectRE.ReplaceAllStringFunc(queries[q].text, func(m string) string {
		sub := dialectRE.FindStringSubmatch(m)
		if sub[1] == "year" {
			return caps.Year(sub[2])
		}
		n, err := strconv.Atoi(sub[2])
		if err != nil {
			panic("tpch: bad limit in query " + strconv.Itoa(q))
		}
		return caps.LimitClause(n)
	})
	return paramRE.ReplaceAllStringFunc(s, func(m string) string {
		v, ok := p[m[1:]]
		if !ok {
			panic(fmt.Sprintf("tpch: query %d has no parameter %s", q, m))
		}
		return v
	})
}

// quote is a string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
