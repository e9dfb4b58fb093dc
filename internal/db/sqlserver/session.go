package sqlserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/dbharness/dbharness/internal/db"
)

// setOption is a T-SQL SET option that holds for the session: how --set
// NAME=VALUE becomes its SET statement, and how the session's value is read
// back, so that a server that accepts the statement and ignores it (as
// Babelfish does some) is told, not trusted.
type setOption struct {
	// stmt is the SET statement for a value, or an error, one sentence,
	// for a value the option does not take.
	stmt func(v string) (string, error)
	// read is a query for the session's value, as stmt's value reads
	// (ON/OFF, a number, a level's number).
	read string
	// want is what read returns once value v is set.
	want func(v string) string
}

// onOff is an ON/OFF option whose state is bit of @@OPTIONS.
func onOff(name string, bit int) setOption {
	return setOption{
		stmt: func(v string) (string, error) {
			switch strings.ToUpper(v) {
			case "ON", "OFF":
				return "SET " + name + " " + strings.ToUpper(v), nil
			}
			return "", fmt.Errorf("%s takes ON or OFF", name)
		},
		read: fmt.Sprintf("SELECT CASE WHEN @@OPTIONS & %d <> 0 THEN 'ON' ELSE 'OFF' END", bit),
		want: strings.ToUpper,
	}
}

// number is an option that takes an integer from lo to hi, read back by
// read.
func number(name string, lo, hi int, read string) setOption {
	return setOption{
		stmt: func(v string) (string, error) {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi {
				return "", fmt.Errorf("%s takes a whole number from %d to %d", name, lo, hi)
			}
			return "SET " + name + " " + strconv.Itoa(n), nil
		},
		read: read,
		want: func(v string) string { n, _ := strconv.Atoi(v); return strconv.Itoa(n) },
	}
}

// isolationLevels are SET TRANSACTION ISOLATION LEVEL's levels, by the
// number sys.dm_exec_sessions gives them.
var isolationLevels = map[string]string{"READ UNCOMMITTED": "1", "READ COMMITTED": "2", "REPEATABLE READ": "3", "SERIALIZABLE": "4", "SNAPSHOT": "5"}

// level turns READ_COMMITTED, read-committed or read committed into READ
// COMMITTED.
func level(v string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(strings.ToUpper(v))), " ")
}

// deadlockPriorities are DEADLOCK_PRIORITY's names and their numbers.
var deadlockPriorities = map[string]string{"LOW": "-5", "NORMAL": "0", "HIGH": "5"}

// sessionRead is the session's own row of sys.dm_exec_sessions.
const sessionRead = "SELECT CAST(%s AS varchar(10)) FROM sys.dm_exec_sessions WHERE session_id = @@SPID"

// setOptions are the session SET options --set knows, by upper-case name
// (SQL Server's documentation, "SET Statements"; the @@OPTIONS bits are
// those of "@@OPTIONS").
var setOptions = map[string]setOption{
	"IMPLICIT_TRANSACTIONS":   onOff("IMPLICIT_TRANSACTIONS", 2),
	"CURSOR_CLOSE_ON_COMMIT":  onOff("CURSOR_CLOSE_ON_COMMIT", 4),
	"ANSI_WARNINGS":           onOff("ANSI_WARNINGS", 8),
	"ANSI_PADDING":            onOff("ANSI_PADDING", 16),
	"ANSI_NULLS":              onOff("ANSI_NULLS", 32),
	"ARITHABORT":              onOff("ARITHABORT", 64),
	"ARITHIGNORE":             onOff("ARITHIGNORE", 128),
	"QUOTED_IDENTIFIER":       onOff("QUOTED_IDENTIFIER", 256),
	"NOCOUNT":                 onOff("NOCOUNT", 512),
	"ANSI_NULL_DFLT_ON":       onOff("ANSI_NULL_DFLT_ON", 1024),
	"ANSI_NULL_DFLT_OFF":      onOff("ANSI_NULL_DFLT_OFF", 2048),
	"CONCAT_NULL_YIELDS_NULL": onOff("CONCAT_NULL_YIELDS_NULL", 4096),
	"NUMERIC_ROUNDABORT":      onOff("NUMERIC_ROUNDABORT", 8192),
	"XACT_ABORT":              onOff("XACT_ABORT", 16384),
	"LOCK_TIMEOUT":            number("LOCK_TIMEOUT", -1, 1<<31-1, "SELECT @@LOCK_TIMEOUT"),
	"DATEFIRST":               number("DATEFIRST", 1, 7, "SELECT @@DATEFIRST"),
	"DEADLOCK_PRIORITY": {
		stmt: func(v string) (string, error) {
			u := strings.ToUpper(v)
			if _, ok := deadlockPriorities[u]; ok {
				return "SET DEADLOCK_PRIORITY " + u, nil
			}
			if n, err := strconv.Atoi(v); err == nil && n >= -10 && n <= 10 {
				return "SET DEADLOCK_PRIORITY " + strconv.Itoa(n), nil
			}
			return "", errors.New("DEADLOCK_PRIORITY takes LOW, NORMAL, HIGH or a whole number from -10 to 10")
		},
		read: fmt.Sprintf(sessionRead, "deadlock_priority"),
		want: func(v string) string {
			if n, ok := deadlockPriorities[strings.ToUpper(v)]; ok {
				return n
			}
			n, _ := strconv.Atoi(v)
			return strconv.Itoa(n)
		},
	},
	"TRANSACTION_ISOLATION_LEVEL": {
		stmt: func(v string) (string, error) {
			if _, ok := isolationLevels[level(v)]; !ok {
				return "", errors.New("TRANSACTION_ISOLATION_LEVEL takes READ_UNCOMMITTED, READ_COMMITTED, REPEATABLE_READ, SNAPSHOT or SERIALIZABLE")
			}
			return "SET TRANSACTION ISOLATION LEVEL " + level(v), nil
		},
		read: fmt.Sprintf(sessionRead, "transaction_isolation_level"),
		want: func(v string) string { return isolationLevels[level(v)] },
	},
}

// optionNames lists setOptions' names, sorted, for an error.
func optionNames() string {
	var n []string
	for k := range setOptions {
		n = append(n, k)
	}
	slices.Sort(n)
	return strings.Join(n, ", ")
}

// SetSession implements db.SessionSetter with T-SQL SET statements, run on
// every connection as it connects (Connect). Each setting is checked on a
// connection of its own: a name that is not a session SET option, a value
// the option does not take, a value the server refuses, and one the server
// accepts but does not apply (the session reads another value back) are
// each a *db.SettingError. DELAYED_DURABILITY, a database option, is
// refused with what the server has of it.
func (d *msDB) SetSession(ctx context.Context, set []db.Assignment) error {
	c, err := d.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var stmts []string
	for _, a := range set {
		name := strings.ToUpper(a.Name)
		if name == "DELAYED_DURABILITY" {
			return &db.SettingError{Setting: a, Why: delayedDurability(ctx, c)}
		}
		o, ok := setOptions[name]
		if !ok {
			return &db.SettingError{Setting: a, Why: "not a session SET option dbharness knows on SQL Server; it knows " + optionNames()}
		}
		s, err := o.stmt(a.Value)
		if err != nil {
			return &db.SettingError{Setting: a, Why: err.Error()}
		}
		if err := c.Exec(ctx, s); err != nil {
			var me mssql.Error
			if errors.As(err, &me) {
				return &db.SettingError{Setting: a, Why: "the server refused it: " + oneLine(me.Message)}
			}
			return fmt.Errorf("--set %s: %w", a, err)
		}
		got, err := readSettled(ctx, c, o.read, o.want(a.Value))
		if err == nil && got != o.want(a.Value) {
			return &db.SettingError{Setting: a, Why: fmt.Sprintf("the server accepted %s but does not apply it: the session still reads %s", s, got)}
		}
		stmts = append(stmts, s)
	}
	d.session = append(d.session, set...)
	d.sessionSQL = append(d.sessionSQL, stmts...)
	return nil
}

// delayedDurability says, in the rest of a sentence, why --set
// DELAYED_DURABILITY is refused: it is the database's option, which
// sys.databases shows where the server has it.
func delayedDurability(ctx context.Context, c db.Conn) string {
	v := databaseDelayedDurability(ctx, c)
	if v == "" {
		return noDelayedDurability
	}
	return fmt.Sprintf("delayed durability is the database's option, not a session's (it is %s now): set it with ALTER DATABASE ... SET DELAYED_DURABILITY = FORCED, which holds for every session", v)
}

// sessionValues reads the session's values of the settings SetSession set
// into m (for Info): what the run's sessions see.
func (d *msDB) sessionValues(ctx context.Context, c db.Conn, m map[string]string) error {
	for _, a := range d.session {
		o := setOptions[strings.ToUpper(a.Name)]
		v, err := readSettled(ctx, c, o.read, o.want(a.Value))
		if err != nil {
			return err
		}
		m[a.Name] = v
	}
	return nil
}

// readSettled reads a session's value with query q and, while it is not
// want, reads it again for up to two seconds: a server may show a SET in
// sys.dm_exec_sessions only some time after it ran (Babelfish's view of the
// session's isolation level lags on a busy host). A value that still
// differs is returned as read.
func readSettled(ctx context.Context, c db.Conn, q, want string) (string, error) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		got, err := db.QueryString(ctx, c, q)
		if err != nil || got == want || time.Now().After(deadline) {
			return got, err
		}
		select {
		case <-ctx.Done():
			return got, nil
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// noDelayedDurability says that the server has none.
const noDelayedDurability = "this server has no delayed durability (sys.databases shows no delayed_durability_desc for the database; Babelfish also refuses ALTER DATABASE ... SET DELAYED_DURABILITY, error 33557097)"

// databaseDelayedDurability is the database's DELAYED_DURABILITY
// (DISABLED, ALLOWED or FORCED), or "" where the server has none.
func databaseDelayedDurability(ctx context.Context, c db.Conn) string {
	v, err := db.QueryString(ctx, c, "SELECT CAST(delayed_durability_desc AS varchar(20)) FROM sys.databases WHERE name = DB_NAME()")
	if err != nil {
		return ""
	}
	return v
}

// delayedCommit commits a transaction with delayed durability: SQL Server
// honours it when the database's DELAYED_DURABILITY is ALLOWED (under
// FORCED every commit is delayed anyway).
const delayedCommit = "COMMIT TRANSACTION WITH (DELAYED_DURABILITY = ON)"

// DelayedCommit implements db.DelayedCommitter. Under the database's
// DISABLED, SQL Server ignores the COMMIT's option and commits fully
// durable, so it is refused rather than run as a silent no-op; a server
// without the option (Babelfish) is refused as --set refuses it.
func (d *msDB) DelayedCommit(ctx context.Context, c db.Conn) (string, error) {
	switch v := databaseDelayedDurability(ctx, c); v {
	case "":
		return "", errors.New(noDelayedDurability)
	case "ALLOWED", "FORCED":
		return delayedCommit, nil
	default:
		return "", fmt.Errorf("the database's DELAYED_DURABILITY is %s, under which SQL Server ignores COMMIT ... WITH (DELAYED_DURABILITY = ON) and commits fully durable: ALTER DATABASE ... SET DELAYED_DURABILITY = ALLOWED first", v)
	}
}
