package testdb

import (
	"context"
	"strings"
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

func TestPrivatePostgresListensAlsoWhereItIsToldAndLogsWhatItIsTold(t *testing.T) {
	// 127.0.0.2 is this host's on every Linux (lo has 127.0.0.0/8).
	p := PrivatePostgres(t, ListenAlso([]string{"127.0.0.2"}, []string{"127.0.0.2/32"}), ServerConf("log_connections = on"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, p.URLAt("127.0.0.2", "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var addr, hba string
	if err := c.QueryRow(ctx, "SELECT host(inet_server_addr()), (SELECT string_agg(address || '/' || netmask, ' ') FROM pg_hba_file_rules WHERE type = 'host')").
		Scan(&addr, &hba); err != nil {
		t.Fatal(err)
	}
	if addr != "127.0.0.2" || !strings.Contains(hba, "127.0.0.2/255.255.255.255") {
		t.Errorf("the server answered at %s with the host rules %s; want 127.0.0.2 and a rule for it", addr, hba)
	}
	if log := p.Log(); !strings.Contains(log, "connection received: host=127.0.0.") {
		t.Errorf("the server's log has no connection with log_connections on:\n%s", log)
	}
}
