package postgres

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbharness/dbharness/internal/redact"
)

// keywordValue is the start of libpq's key=value connection string
// ("host=h user=u dbname=d").
var keywordValue = regexp.MustCompile(`^\s*[A-Za-z_]+\s*=`)

// parseKeywordValue implements db.Engine's ParseOther: a libpq key=value
// string is a PostgreSQL target, read by pgx as libpq reads it (the PG*
// environment variables fill what it leaves out).
func parseKeywordValue(raw string) (*url.URL, bool, error) {
	if !keywordValue.MatchString(raw) {
		return nil, false, nil
	}
	cfg, err := pgconn.ParseConfig(raw)
	if err != nil {
		return nil, true, fmt.Errorf("--db %q is not a valid PostgreSQL connection string: %s", redact.String(raw), parseReason(err))
	}
	return configURL(cfg), true, nil
}

// envVars are the libpq environment variables that, set, name a
// PostgreSQL target when no --db is given.
var envVars = []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE"}

// fromEnv implements db.Engine's FromEnv: the target libpq's environment
// variables name, read by pgx. The URL has no password and no sslmode, so
// that Open takes them from PGPASSWORD, PGSSLMODE (or ~/.pgpass) again and
// no secret is kept in it.
func fromEnv() (raw, vars string, err error) {
	var set []string
	for _, v := range envVars {
		if os.Getenv(v) != "" {
			set = append(set, v)
		}
	}
	if len(set) == 0 {
		return "", "", nil
	}
	vars = strings.Join(set, "/")
	cfg, err := pgconn.ParseConfig("")
	if err != nil {
		return "", vars, fmt.Errorf("the PostgreSQL environment variables (%s) name no valid target: %s", vars, parseReason(err))
	}
	return configURL(cfg).String(), vars, nil
}

// configURL is the postgres:// URL of pgx's configuration, without its
// password and TLS settings: its hosts (the fallbacks' too), port, user and
// database.
func configURL(cfg *pgconn.Config) *url.URL {
	u := &url.URL{Scheme: "postgres", Path: "/" + cfg.Database}
	if cfg.User != "" {
		u.User = url.User(cfg.User)
	}
	if strings.HasPrefix(cfg.Host, "/") {
		u.RawQuery = url.Values{"host": {cfg.Host}, "port": {strconv.Itoa(int(cfg.Port))}}.Encode()
		return u
	}
	var hosts []string
	seen := map[string]bool{}
	add := func(host string, port uint16) {
		if hp := net.JoinHostPort(host, strconv.Itoa(int(port))); host != "" && !strings.HasPrefix(host, "/") && !seen[hp] {
			seen[hp] = true
			hosts = append(hosts, hp)
		}
	}
	add(cfg.Host, cfg.Port)
	for _, f := range cfg.Fallbacks {
		add(f.Host, f.Port)
	}
	u.Host = strings.Join(hosts, ",")
	return u
}

// parseReason is what pgx found wrong with a connection string, without
// the string (whose password pgx hides only at its best effort).
func parseReason(err error) string {
	msg := err.Error()
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
	} else if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		msg = msg[i+2:]
	}
	return redact.String(msg)
}
