package testdb

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestPrivatePostgresStartsFreezesAndRestarts(t *testing.T) {
	p := PrivatePostgres(t)
	// One bound for the whole test, a restart included: generous, for a
	// busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, p.URL())
	if err != nil {
		t.Fatal(err)
	}
	var port int
	if err := c.QueryRow(ctx, "SELECT current_setting('port')::int").Scan(&port); err != nil || port != p.port {
		t.Fatalf("port %d, %v; want %d", port, err, p.port)
	}
	p.Freeze()
	qctx, qcancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = c.Exec(qctx, "SELECT 1")
	qcancel()
	if err == nil {
		t.Fatal("a frozen server answered")
	}
	p.Cont()
	c.Close(ctx)
	p.Stop()
	if c, err := pgx.Connect(ctx, p.URL()); err == nil {
		c.Close(ctx)
		t.Fatal("a stopped server accepted a connection")
	}
	p.Start()
	c, err = pgx.Connect(ctx, p.URL())
	if err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
}
