package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbharness/dbharness/internal/db"
)

// sessionContexts says why a setting of each pg_settings context other
// than user, superuser, backend and superuser-backend cannot be set on a
// session.
var sessionContexts = map[string]string{
	"postmaster": "it is set when the server starts and needs a server restart (postgresql.conf or ALTER SYSTEM, then restart)",
	"sighup":     "it is the server's, not a session's: set it in postgresql.conf or with ALTER SYSTEM, then reload the server",
	"internal":   "it is read-only, fixed when the server was built or its cluster initialised",
}

// SetSession implements db.SessionSetter with startup parameters: each
// setting is sent when a connection starts (pgx's and the event loop's,
// which share d.cfg), as libpq's options=-c does. It checks each name and
// context in pg_settings, then opens a connection with the settings to
// let the server check the values (and the user's right to set them).
func (d *pgDB) SetSession(ctx context.Context, set []db.Assignment) error {
	c, err := pgx.ConnectConfig(ctx, d.cfg.Copy())
	if err != nil {
		return connectError(d.t, err)
	}
	defer c.Close(ctx)
	names := make([]string, len(set))
	for i := range set {
		set[i].Name = strings.ToLower(set[i].Name)
		names[i] = set[i].Name
	}
	rows, err := c.Query(ctx, "SELECT name, context FROM pg_settings WHERE name = ANY($1)", names)
	if err != nil {
		return err
	}
	contexts := map[string]string{}
	for rows.Next() {
		var n, cx string
		if err := rows.Scan(&n, &cx); err != nil {
			return err
		}
		contexts[n] = cx
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, a := range set {
		cx, ok := contexts[a.Name]
		if !ok {
			return &db.SettingError{Setting: a, Why: "PostgreSQL has no such setting (it is not in pg_settings)"}
		}
		if why, ok := sessionContexts[cx]; ok {
			return &db.SettingError{Setting: a, Why: "it cannot be set per session: " + why}
		}
	}
	cfg := d.cfg.Copy()
	for _, a := range set {
		cfg.RuntimeParams[a.Name] = a.Value
	}
	tc, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code != "28P01" && pe.Code != "3D000" {
			return &db.SettingError{Setting: refused(set, pe.Message), Why: "the server refused it: " + pe.Message}
		}
		return connectError(d.t, err)
	}
	tc.Close(ctx)
	for _, a := range set {
		d.cfg.RuntimeParams[a.Name] = a.Value
		d.session = append(d.session, a.Name)
	}
	return nil
}

// refused is the setting a server's message names (it quotes the
// parameter), else the first.
func refused(set []db.Assignment, msg string) db.Assignment {
	for _, a := range set {
		if strings.Contains(msg, `"`+a.Name+`"`) {
			return a
		}
	}
	return set[0]
}

// dopSetting is the setting through which --dop bounds a query's
// processes: the workers a Gather node may start, beside the leader.
const dopSetting = "max_parallel_workers_per_gather"

// SetDOP implements db.DOPSetter: max_parallel_workers_per_gather = n-1 as
// a startup parameter of every connection, as SetSession sends --set (the
// leader takes part in the plan, so n-1 workers make n processes). A --set
// of the same setting is refused: they would be two sources of one value.
func (d *pgDB) SetDOP(ctx context.Context, n int) error {
	for _, s := range d.session {
		if s == dopSetting {
			return &db.DOPError{N: n, Why: fmt.Sprintf("it sets %s to %d, and --set %s=%s sets it too; give one of them", dopSetting, n-1, dopSetting, d.cfg.RuntimeParams[dopSetting])}
		}
	}
	a := db.Assignment{Name: dopSetting, Value: strconv.Itoa(n - 1)}
	if err := d.SetSession(ctx, []db.Assignment{a}); err != nil {
		if se := (*db.SettingError)(nil); errors.As(err, &se) {
			return &db.DOPError{N: n, Why: se.Why}
		}
		return err
	}
	return nil
}
