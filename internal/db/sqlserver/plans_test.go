package sqlserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlserver"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// showplanDoc is a SHOWPLAN_XML document of the documented schema
// (showplanxml.xsd): a batch of two statements, a parallel join of a
// clustered index seek and a backward index scan under a Gather Streams,
// and an UPDATE through a clustered index. cost, rows and dop are the
// figures that change from one compilation to the next.
func showplanDoc(cost, rows, dop, index string) string {
	return `<?xml version="1.0" encoding="utf-16"?>
<ShowPlanXML xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" Version="1.564" Build="16.0.1000.6" xmlns="http://schemas.microsoft.com/sqlserver/2004/07/showplan">
  <BatchSequence>
    <Batch>
      <Statements>
        <StmtSimple StatementText="SELECT c.c_last, o.o_id FROM customer c JOIN orders o ON o.o_c_id = c.c_id WHERE c.c_id = @p1" StatementId="1" StatementCompId="1" StatementType="SELECT" StatementSubTreeCost="` + cost + `" StatementEstRows="` + rows + `" StatementOptmLevel="FULL" QueryHash="0x1A2B3C4D5E6F7081" QueryPlanHash="0x8070605040302010">
          <StatementSetOptions QUOTED_IDENTIFIER="true" ARITHABORT="true" CONCAT_NULL_YIELDS_NULL="true" ANSI_NULLS="true" ANSI_PADDING="true" ANSI_WARNINGS="true" NUMERIC_ROUNDABORT="false" />
          <QueryPlan DegreeOfParallelism="4" CachedPlanSize="40" CompileTime="3" CompileCPU="3" CompileMemory="312">
            <MemoryGrantInfo SerialRequiredMemory="0" SerialDesiredMemory="0" />
            <OptimizerHardwareDependentProperties EstimatedAvailableMemoryGrant="104857" EstimatedPagesCached="26214" EstimatedAvailableDegreeOfParallelism="` + dop + `" MaxCompileMemory="2353512" />
            <RelOp NodeId="0" PhysicalOp="Parallelism" LogicalOp="Gather Streams" EstimateRows="` + rows + `" EstimateIO="0" EstimateCPU="0.0285" AvgRowSize="31" EstimatedTotalSubtreeCost="` + cost + `" Parallel="true" EstimateRebinds="0" EstimateRewinds="0" EstimatedExecutionMode="Row">
              <OutputList><ColumnReference Database="[bench_1]" Schema="[dbo]" Table="[customer]" Alias="[c]" Column="c_last" /></OutputList>
              <Parallelism>
                <RelOp NodeId="1" PhysicalOp="Nested Loops" LogicalOp="Inner Join" EstimateRows="` + rows + `" EstimatedTotalSubtreeCost="` + cost + `" Parallel="true" EstimatedExecutionMode="Row">
                  <OutputList />
                  <NestedLoops Optimized="false">
                    <OuterReferences />
                    <RelOp NodeId="2" PhysicalOp="Clustered Index Seek" LogicalOp="Clustered Index Seek" EstimateRows="1" EstimatedTotalSubtreeCost="0.0032831" Parallel="true" EstimatedExecutionMode="Row">
                      <OutputList />
                      <IndexScan Ordered="true" ScanDirection="FORWARD" ForcedIndex="false" ForceSeek="false" ForceScan="false" NoExpandHint="false" Storage="RowStore">
                        <DefinedValues><DefinedValue><ColumnReference Database="[bench_1]" Schema="[dbo]" Table="[customer]" Alias="[c]" Column="c_last" /></DefinedValue></DefinedValues>
                        <Object Database="[bench_1]" Schema="[dbo]" Table="[customer]" Index="[PK_customer]" Alias="[c]" IndexKind="Clustered" Storage="RowStore" />
                        <SeekPredicates><SeekPredicateNew><SeekKeys><Prefix ScanType="EQ"><RangeColumns><ColumnReference Database="[bench_1]" Schema="[dbo]" Table="[customer]" Alias="[c]" Column="c_id" /></RangeColumns><RangeExpressions><ScalarOperator ScalarString="[@p1]"><Identifier><ColumnReference Column="@p1" /></Identifier></ScalarOperator></RangeExpressions></Prefix></SeekKeys></SeekPredicateNew></SeekPredicates>
                      </IndexScan>
                    </RelOp>
                    <RelOp NodeId="3" PhysicalOp="Index Scan" LogicalOp="Index Scan" EstimateRows="` + rows + `" EstimatedTotalSubtreeCost="` + cost + `" Parallel="true" EstimatedExecutionMode="Row">
                      <OutputList />
                      <IndexScan Ordered="true" ScanDirection="BACKWARD" ForcedIndex="false" ForceSeek="false" ForceScan="false" NoExpandHint="false" Storage="RowStore">
                        <DefinedValues />
                        <Object Database="[bench_1]" Schema="[dbo]" Table="[orders]" Index="` + index + `" Alias="[o]" IndexKind="NonClustered" Storage="RowStore" />
                        <Predicate><ScalarOperator ScalarString="[bench_1].[dbo].[orders].[o_c_id] as [o].[o_c_id]=[@p1]" /></Predicate>
                      </IndexScan>
                    </RelOp>
                  </NestedLoops>
                </RelOp>
              </Parallelism>
            </RelOp>
            <ParameterList><ColumnReference Column="@p1" ParameterDataType="bigint" ParameterCompiledValue="(42)" /></ParameterList>
          </QueryPlan>
        </StmtSimple>
        <StmtSimple StatementText="UPDATE warehouse SET w_ytd = w_ytd + @p2 WHERE w_id = @p1" StatementId="2" StatementCompId="2" StatementType="UPDATE" StatementSubTreeCost="0.0132842" StatementEstRows="1">
          <QueryPlan NonParallelPlanReason="CouldNotGenerateValidParallelPlan" CachedPlanSize="24" CompileTime="1" CompileCPU="1" CompileMemory="200">
            <OptimizerHardwareDependentProperties EstimatedAvailableMemoryGrant="104857" EstimatedPagesCached="26214" EstimatedAvailableDegreeOfParallelism="` + dop + `" />
            <RelOp NodeId="0" PhysicalOp="Clustered Index Update" LogicalOp="Update" EstimateRows="1" EstimatedTotalSubtreeCost="0.0132842" Parallel="false" EstimatedExecutionMode="Row">
              <OutputList />
              <Update DMLRequestSort="false">
                <Object Database="[bench_1]" Schema="[dbo]" Table="[warehouse]" Index="[PK_warehouse]" IndexKind="Clustered" Storage="RowStore" />
                <SetPredicate><ScalarOperator ScalarString="[w_ytd] = [Expr1002]" /></SetPredicate>
                <RelOp NodeId="1" PhysicalOp="Compute Scalar" LogicalOp="Compute Scalar" EstimateRows="1" Parallel="0" EstimatedExecutionMode="Row">
                  <OutputList />
                  <ComputeScalar>
                    <DefinedValues />
                    <RelOp NodeId="2" PhysicalOp="Clustered Index Seek" LogicalOp="Clustered Index Seek" EstimateRows="1" Parallel="0" EstimatedExecutionMode="Row">
                      <OutputList />
                      <IndexScan Ordered="true" ScanDirection="FORWARD" ForcedIndex="false" ForceSeek="false" ForceScan="false" NoExpandHint="false" Storage="RowStore">
                        <DefinedValues />
                        <Object Database="[bench_1]" Schema="[dbo]" Table="[warehouse]" Index="[PK_warehouse]" IndexKind="Clustered" Storage="RowStore" />
                      </IndexScan>
                    </RelOp>
                  </ComputeScalar>
                </RelOp>
              </Update>
            </RelOp>
          </QueryPlan>
        </StmtSimple>
        <StmtSimple StatementText="DECLARE @x int" StatementId="3" StatementCompId="3" StatementType="DECLARE" />
      </Statements>
    </Batch>
  </BatchSequence>
</ShowPlanXML>`
}

// A SHOWPLAN_XML document gives its statements' operators in plan order
// with the objects and indexes they use, the parallel ones marked and the
// plan's degree of parallelism; estimates, costs, the hardware's figures
// and values do not change the shape; another index does.
func TestShowplanShapeIsThePlansStructure(t *testing.T) {
	shape, err := sqlserver.ShowplanShape([]byte(showplanDoc("0.0468", "12.5", "2", "[ix_orders_c]")))
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT (dop 4): Parallelism (Gather Streams, parallel) [Nested Loops (Inner Join, parallel) [" +
		"Clustered Index Seek (parallel, on dbo.customer alias c using PK_customer clustered); " +
		"Index Scan (parallel, on dbo.orders alias o using ix_orders_c nonclustered backward)]]; " +
		"UPDATE (serial: CouldNotGenerateValidParallelPlan): Clustered Index Update (Update, on dbo.warehouse using PK_warehouse clustered) [" +
		"Compute Scalar [Clustered Index Seek (on dbo.warehouse using PK_warehouse clustered)]]"
	if shape != want {
		t.Errorf("shape\n%s\nwant\n%s", shape, want)
	}
	same, err := sqlserver.ShowplanShape([]byte(showplanDoc("3.75", "8000", "8", "[ix_orders_c]")))
	if err != nil || same != shape {
		t.Errorf("other estimates gave %q (%v), want the same shape", same, err)
	}
	other, err := sqlserver.ShowplanShape([]byte(showplanDoc("0.0468", "12.5", "2", "[ix_orders_d]")))
	if err != nil || other == shape || !strings.Contains(other, "using ix_orders_d") {
		t.Errorf("another index gave %q (%v), want a different shape naming it", other, err)
	}
	for _, bad := range []string{"1", "<results><row>1</row></results>", `<ShowPlanXML><BatchSequence/></ShowPlanXML>`} {
		if s, err := sqlserver.ShowplanShape([]byte(bad)); err == nil {
			t.Errorf("%q gave shape %q, want an error", bad, s)
		}
	}
}

// On the test server the plan check first proves that SET SHOWPLAN_XML ON
// holds. Babelfish accepts it and runs statements anyway: there the check
// says why plans are not measured, and the workload's statement is never
// sent (an INSERT explained inserts nothing); the connection works as
// before. On a SQL Server the INSERT's plan is read and nothing is
// inserted either.
func TestExplainProvesShowplanHoldsAndNeverRunsTheStatement(t *testing.T) {
	t.Parallel()
	d, c := testdb.Connect(t, testdb.SQLServer(t, "dbh_showplan"))
	ctx := context.Background()
	info, err := d.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "CREATE TABLE plan_probe (id bigint PRIMARY KEY, v int)"); err != nil {
		t.Fatal(err)
	}
	shape, xerr := d.(evidence.Explainer).Explain(ctx, c, "INSERT INTO plan_probe (id, v) VALUES ($1, $2)", []any{int64(7), 1})
	perr := collect.CanExplain(ctx, d, c)
	if info.Engine == "babelfish" {
		for _, err := range []error{xerr, perr} {
			if err == nil || !strings.Contains(err.Error(), "does not honour it") || !strings.Contains(err.Error(), `returned "1"`) {
				t.Errorf("error %v: want the option named as not holding, with what SELECT 1 returned", err)
			}
		}
		if shape != "" {
			t.Errorf("shape %q on Babelfish", shape)
		}
	} else {
		if xerr != nil || perr != nil {
			t.Fatalf("explain: %v; probe: %v", xerr, perr)
		}
		if !strings.HasPrefix(shape, "INSERT") || !strings.Contains(shape, "on dbo.plan_probe") {
			t.Errorf("shape %q: want the INSERT's plan on plan_probe", shape)
		}
	}
	// The option is off again: statements run.
	if n, err := db.QueryInt64(ctx, c, "SELECT COUNT(*) FROM plan_probe"); err != nil || n != 0 {
		t.Errorf("%d rows (%v) after the explanation: want 0, the statement not run", n, err)
	}
	if n, err := db.QueryInt64(ctx, c, "SELECT 41 + 1"); err != nil || n != 42 {
		t.Errorf("SELECT 41 + 1 gave %d (%v) after the explanation", n, err)
	}
}
