package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/dbharness/dbharness/internal/db"
)

// SetSession implements db.SessionSetter with SET SESSION, run on every
// connection after it connects (Connect's and ConnectLoop's, which share
// connect). It reads each setting's session value first, which the server
// refuses for an unknown variable and for a global-only one, then sets it,
// which it refuses for a read-only variable and a value it does not take.
func (d *myDB) SetSession(ctx context.Context, set []db.Assignment) error {
	c, err := d.connect(ctx, false)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, a := range set {
		var v sql.NullString
		err := c.C.QueryRowContext(ctx, "SELECT @@SESSION."+a.Name).Scan(&v)
		if err == nil {
			err = setVar(ctx, c.C, a)
		}
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			if err != nil {
				return fmt.Errorf("--set %s: %w", a, err)
			}
			continue
		}
		switch me.Number {
		case 1193: // unknown system variable
			return &db.SettingError{Setting: a, Why: "the server has no such variable (SHOW VARIABLES does not list it)"}
		case 1238, 1229: // global (SELECT, SET) or read-only (SET)
			why := "it is a global variable, not a session's: set it with SET GLOBAL or in the server's configuration"
			if strings.Contains(me.Message, "read only") || readOnly(ctx, c.C, a.Name) {
				why = "it is read-only: no session can set it; where it can be changed at all, the server's configuration does, with a restart"
			}
			return &db.SettingError{Setting: a, Why: why}
		default:
			return &db.SettingError{Setting: a, Why: "the server refused it: " + me.Message}
		}
	}
	d.session = append(d.session, set...)
	return nil
}

// readOnly reports whether MariaDB's information_schema.SYSTEM_VARIABLES
// says the variable is read-only (false where the table is missing, as on
// MySQL).
func readOnly(ctx context.Context, c *sql.Conn, name string) bool {
	var ro string
	err := c.QueryRowContext(ctx, "SELECT READ_ONLY FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = ?", strings.ToUpper(name)).Scan(&ro)
	return err == nil && ro == "YES"
}

// number is a value SET takes bare; any other is sent as a string literal,
// which the server reads as its variable's type (ON, READ-COMMITTED).
var number = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// setVar sets one session variable on c.
func setVar(ctx context.Context, c *sql.Conn, a db.Assignment) error {
	v := a.Value
	if !number.MatchString(v) {
		v = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
	}
	_, err := c.ExecContext(ctx, "SET SESSION "+a.Name+" = "+v)
	return err
}

// sessionValues reads the session's values of the settings SetSession
// sets into m (for Info): what the run's sessions see.
func (d *myDB) sessionValues(ctx context.Context, c db.Conn, m map[string]string) error {
	for _, a := range d.session {
		v, err := db.QueryString(ctx, c, "SELECT @@SESSION."+a.Name)
		if err != nil {
			return err
		}
		m[a.Name] = v
	}
	return nil
}
