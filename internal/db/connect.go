package db

import (
	"fmt"
	"github.com/dbharness/dbharness/internal/redact"
	"strings"
)

// ConnectError turns a driver's connect error into one sentence that names
// the target (without its password) and what to fix. protocol names the
// engine's wire protocol ("PostgreSQL") and foreign lists lowercase
// fragments of the driver's messages that mean the server there speaks
// another one.
func ConnectError(t *Target, err error, protocol string, foreign ...string) error {
	msg := redact.String(err.Error())
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "password authentication failed"), strings.Contains(low, "access denied"):
		return AuthFailed(t)
	case strings.Contains(low, "unknown database"):
		return NoDatabase(t)
	case strings.Contains(low, "connection refused"):
		return fmt.Errorf("cannot connect to %s: connection refused; is the server running and listening there?", t)
	case strings.Contains(low, "timeout"), strings.Contains(low, "deadline exceeded"), strings.Contains(low, "i/o timeout"):
		return fmt.Errorf("cannot connect to %s: no answer within the connect timeout; check host and port", t)
	case strings.Contains(low, "no such host"):
		return fmt.Errorf("cannot connect to %s: unknown host; check the host name in --db", t)
	case strings.Contains(low, "no such file"):
		return fmt.Errorf("cannot connect to %s: the socket does not exist; is the server running?", t)
	}
	for _, f := range foreign {
		if strings.Contains(low, f) {
			return fmt.Errorf("cannot connect to %s: the server there does not speak the %s protocol; check the host and port", t, protocol)
		}
	}
	// Keep the driver's reason but only its last clause, which is the cause.
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		msg = msg[i+2:]
	}
	return fmt.Errorf("cannot connect to %s: %s", t, msg)
}

// AuthFailed is ConnectError's sentence for a refused user or password.
func AuthFailed(t *Target) error {
	return fmt.Errorf("cannot connect to %s: authentication failed; check the user and password in --db", t)
}

// NoDatabase is ConnectError's sentence for a database that does not exist.
func NoDatabase(t *Target) error {
	return fmt.Errorf("cannot connect to %s: the database does not exist; create it or fix the name in --db", t)
}
