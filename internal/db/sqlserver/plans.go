package sqlserver

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// Plans are read with SET SHOWPLAN_XML ON: while it is on, the session
// compiles each statement it is sent and returns its estimated plan as one
// XML document (showplanxml.xsd) instead of running it. A server that
// accepts the option without honouring it runs the statement instead
// (Babelfish), so each explanation first proves that the option holds.

// showplanProbe is the harmless statement that proves the option holds:
// under it, the answer is a plan document, not 1.
const showplanProbe = "SELECT 1"

// ProbeExplain implements evidence.ExplainProber: SET SHOWPLAN_XML ON, then
// SELECT 1 must answer with a plan. The option is set off again.
func (d *msDB) ProbeExplain(ctx context.Context, conn db.Conn) error {
	return showplan(ctx, conn, nil)
}

// Explain implements evidence.Explainer: the statement's estimated plan
// under SET SHOWPLAN_XML ON, sent as the clients send it (with parameters:
// sp_executesql, so the plan is compiled for these values as the clients'
// is), reduced to its shape by ShowplanShape. The statement is not run:
// when SELECT 1 does not answer with a plan first, it is not sent at all.
func (d *msDB) Explain(ctx context.Context, conn db.Conn, sql string, args []any) (string, error) {
	var shape string
	err := showplan(ctx, conn, func() error {
		docs, err := db.QueryStrings(ctx, conn, sql, args...)
		if err != nil {
			return fmt.Errorf("showplan: %w", err)
		}
		if len(docs) == 0 {
			return fmt.Errorf("showplan: the server returned no plan")
		}
		var shapes []string
		for _, doc := range docs {
			s, err := ShowplanShape([]byte(doc))
			if err != nil {
				return err
			}
			shapes = append(shapes, s)
		}
		shape = strings.Join(shapes, "; ")
		return nil
	})
	return shape, err
}

// showplan sets SHOWPLAN_XML on for conn, proves that it holds, runs then
// (when not nil) and sets it off. A connection whose option cannot be set
// off again is closed: it would not run the statements it is later sent.
func showplan(ctx context.Context, conn db.Conn, then func() error) (err error) {
	if err := conn.Exec(ctx, "SET SHOWPLAN_XML ON"); err != nil {
		return fmt.Errorf("SET SHOWPLAN_XML ON: %w", err)
	}
	defer func() {
		if oerr := conn.Exec(context.WithoutCancel(ctx), "SET SHOWPLAN_XML OFF"); oerr != nil {
			if a, ok := conn.(db.Aborter); ok {
				a.Abort()
			}
			if err == nil {
				err = fmt.Errorf("SET SHOWPLAN_XML OFF: %w", oerr)
			}
		}
	}()
	v, err := db.QueryString(ctx, conn, showplanProbe)
	if err != nil {
		return fmt.Errorf("%s under SET SHOWPLAN_XML ON: %w", showplanProbe, err)
	}
	if !strings.Contains(v, "<ShowPlanXML") {
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return fmt.Errorf("the server accepts SET SHOWPLAN_XML ON but does not honour it (%s then returned %q, not its plan; Babelfish runs the statements instead), so no statement is explained", showplanProbe, v)
	}
	if then == nil {
		return nil
	}
	return then()
}

// xnode is any element of a showplan document.
type xnode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []xnode    `xml:",any"`
}

func (n *xnode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// ShowplanShape reduces a SHOWPLAN_XML document to its shape: for each
// statement with a plan, its type, the degree of parallelism the plan was
// compiled for where the document gives it (QueryPlan's
// DegreeOfParallelism) or why it is serial (NonParallelPlanReason), and its
// operators (RelOp) in plan order: the physical operator, the logical one
// where it differs, parallel, the objects each reads or writes (schema,
// table, index, its kind) and an index scan's direction. Estimates, costs,
// memory grants, the hardware's figures
// (EstimatedAvailableDegreeOfParallelism), predicates and values are left
// out, so that equal plans give equal text. The database's name is left
// out too, as PostgreSQL's shape leaves it out.
func ShowplanShape(doc []byte) (string, error) {
	var root xnode
	dec := xml.NewDecoder(bytes.NewReader(doc))
	// A plan saved by SQL Server declares encoding="utf-16"; the driver
	// has decoded the text already.
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := dec.Decode(&root); err != nil || root.XMLName.Local != "ShowPlanXML" {
		return "", fmt.Errorf("unexpected SHOWPLAN_XML output: %.80s", doc)
	}
	var stmts []string
	var find func(n *xnode)
	find = func(n *xnode) {
		for i := range n.Nodes {
			c := &n.Nodes[i]
			if c.XMLName.Local == "StmtSimple" {
				if s := stmtShape(c); s != "" {
					stmts = append(stmts, s)
				}
			}
			find(c)
		}
	}
	find(&root)
	if len(stmts) == 0 {
		return "", fmt.Errorf("the SHOWPLAN_XML document has no statement with a plan: %.80s", doc)
	}
	return strings.Join(stmts, "; "), nil
}

// stmtShape is the shape of one StmtSimple, or "" when it has no plan.
func stmtShape(st *xnode) string {
	for i := range st.Nodes {
		qp := &st.Nodes[i]
		if qp.XMLName.Local != "QueryPlan" {
			continue
		}
		var b strings.Builder
		b.WriteString(st.attr("StatementType"))
		if dop := qp.attr("DegreeOfParallelism"); dop != "" && dop != "0" && dop != "1" {
			b.WriteString(" (dop " + dop + ")")
		} else if why := qp.attr("NonParallelPlanReason"); why != "" {
			b.WriteString(" (serial: " + why + ")")
		}
		ops := childOps(qp)
		if len(ops) > 0 {
			b.WriteString(": ")
			writeOps(&b, ops)
		}
		return b.String()
	}
	return ""
}

// childOps are the RelOps under n that no other RelOp under n holds.
func childOps(n *xnode) []*xnode {
	var out []*xnode
	for i := range n.Nodes {
		c := &n.Nodes[i]
		if c.XMLName.Local == "RelOp" {
			out = append(out, c)
			continue
		}
		out = append(out, childOps(c)...)
	}
	return out
}

func writeOps(b *strings.Builder, ops []*xnode) {
	for i, op := range ops {
		if i > 0 {
			b.WriteString("; ")
		}
		writeOp(b, op)
	}
}

func writeOp(b *strings.Builder, op *xnode) {
	phys, logical := op.attr("PhysicalOp"), op.attr("LogicalOp")
	b.WriteString(phys)
	var attrs []string
	if logical != "" && logical != phys {
		attrs = append(attrs, logical)
	}
	if p := op.attr("Parallel"); p == "1" || p == "true" {
		attrs = append(attrs, "parallel")
	}
	attrs = append(attrs, opObjects(op)...)
	if len(attrs) > 0 {
		b.WriteString(" (" + strings.Join(attrs, ", ") + ")")
	}
	if kids := childOps(op); len(kids) > 0 {
		b.WriteString(" [")
		writeOps(b, kids)
		b.WriteString("]")
	}
}

// opObjects describes the Object elements of an operator (not those of
// the operators under it), with an index scan's direction.
func opObjects(op *xnode) []string {
	var out []string
	var walk func(n *xnode, dir string)
	walk = func(n *xnode, dir string) {
		for i := range n.Nodes {
			c := &n.Nodes[i]
			switch c.XMLName.Local {
			case "RelOp":
				continue
			case "IndexScan":
				walk(c, c.attr("ScanDirection"))
				continue
			case "Object":
				out = append(out, objectText(c, dir))
				continue
			}
			walk(c, dir)
		}
	}
	walk(op, "")
	return out
}

func objectText(o *xnode, dir string) string {
	name := unbracket(o.attr("Table"))
	if s := unbracket(o.attr("Schema")); s != "" && name != "" {
		name = s + "." + name
	}
	s := "on " + name
	if a := unbracket(o.attr("Alias")); a != "" && a != unbracket(o.attr("Table")) {
		s += " alias " + a
	}
	if ix := unbracket(o.attr("Index")); ix != "" {
		s += " using " + ix
		if k := o.attr("IndexKind"); k != "" {
			s += " " + strings.ToLower(k)
		}
	}
	if dir != "" && dir != "FORWARD" {
		s += " " + strings.ToLower(dir)
	}
	return s
}

// unbracket takes the brackets off a quoted name ([dbo] is dbo).
func unbracket(s string) string {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		return strings.ReplaceAll(s[1:len(s)-1], "]]", "]")
	}
	return s
}
