// Package redact cuts secrets out of URLs, connection strings, command lines
// and free text before they are printed or stored. It is a leaf: the
// database layer, the results store and the reports all use it without
// depending on one another.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Mask is what a secret is replaced with.
const Mask = "xxxxx"

// secretKeys are the connection parameters whose value is a secret, in
// every form they come in: a URL's query (postgres://h/d?sslpassword=...),
// a key=value connection string (password='...'), a command line, a
// driver's message quoting either. Besides them, the password of a URL's
// user (user:PASSWORD@host) and any value holding a PEM private key are
// secrets.
//
// The drivers' other parameters carry none: libpq's and pgx's passfile,
// sslkey, sslcert, sslrootcert, sslcrl and servicefile are paths (the
// passfile holds passwords, its name does not), service and krbsrvname are
// names; go-sql-driver/mysql takes its password only in the URL's user part,
// and its tls and serverPubKey name configurations registered in the
// program.
var secretKeys = map[string]bool{
	"password":            true, // libpq, pgx
	"sslpassword":         true, // libpq, pgx: the passphrase of the client key (sslkey)
	"oauth_client_secret": true, // libpq 18
	"pass":                true, // the same under other names: ODBC's PWD,
	"passwd":              true, // go-sql-driver's Config.Passwd, ...
	"pwd":                 true,
}

// secret reports whether a parameter (its name percent-decoded, in any
// case) carries a secret.
func secret(key, value string) bool {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	return secretKeys[strings.ToLower(key)] || strings.Contains(value, "PRIVATE KEY-----")
}

// String removes the secrets from a URL, for printing and storing. Anything
// that is not a URL on its own (a driver's error message, a key=value
// connection string, a command-line argument) keeps its text, with the
// secrets of any URL or key=value setting inside it cut out.
func String(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Opaque != "" || strings.ContainsAny(raw, " \t\n") {
		return redactText(raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Mask)
		}
	}
	q := u.Query()
	changed := false
	for k, vs := range q {
		for i, v := range vs {
			if secret(k, v) {
				vs[i], changed = Mask, true
			}
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	// What parses as a URL may still be text with settings in its path.
	return redactText(u.String())
}

// Args removes the secrets from a command line, argument by argument
// (String).
func Args(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = String(a)
	}
	return out
}

// Hidden reports whether s has had a secret masked.
func Hidden(s string) bool {
	return strings.Contains(s, ":"+Mask+"@") || strings.Contains(s, "="+Mask)
}

var (
	urlPassword = regexp.MustCompile(`(://[^/:@\s]*):[^@\s]*@`)
	// setting is one key=value: a query parameter or a libpq setting, its
	// value quoted or running to the next '&' or space.
	setting = regexp.MustCompile(`(^|[^A-Za-z0-9_%])([A-Za-z0-9_%]+)(\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)`)
)

// redactText cuts secrets out of free text: "scheme://user:PASSWORD@" and
// the secret settings "password=PASSWORD", "sslpassword='...'", ...
func redactText(s string) string {
	s = urlPassword.ReplaceAllString(s, "${1}:"+Mask+"@")
	return setting.ReplaceAllStringFunc(s, func(m string) string {
		p := setting.FindStringSubmatch(m)
		if secret(p[2], p[4]) {
			return p[1] + p[2] + p[3] + Mask
		}
		// A setting's value may hold others (dsn=postgres://h/d?password=...).
		return p[1] + p[2] + p[3] + redactText(p[4])
	})
}

// sqlPassword is a password written into a statement: PostgreSQL's
// "PASSWORD 'x'", MySQL's "IDENTIFIED BY 'x'", "SET PASSWORD = 'x'",
// "PASSWORD('x')", "IDENTIFIED VIA plugin USING 'x'", in any case.
var sqlPassword = regexp.MustCompile(`(?i)(\b(?:PASSWORD|IDENTIFIED\s+BY|USING)\s*=?\s*(?:PASSWORD\s*)?\(?\s*)('(?:[^'\\]|''|\\.)*'|"(?:[^"\\]|\\.)*")`)

// SQL removes the secrets from a statement shown to the user (another
// session's query): the passwords in its text and those of any URL or
// connection string inside it (String).
func SQL(q string) string {
	return redactText(sqlPassword.ReplaceAllString(q, "${1}'"+Mask+"'"))
}
