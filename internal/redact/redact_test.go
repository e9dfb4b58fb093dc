package redact_test

import (
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/redact"
)

func TestStringHidesPasswordsInQueryToo(t *testing.T) {
	got := redact.String("postgres://h/d?user=u&password=hunter2")
	if strings.Contains(got, "hunter2") {
		t.Fatal(got)
	}
}

// Every credential-bearing parameter is masked, in every form it comes in;
// messages, paths and names keep their text.
func TestStringKeepsMessagesReadableAndCutsSecretsInThem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// A driver's message is not a URL: it keeps its words.
		{"context deadline exceeded", "context deadline exceeded"},
		{"dial tcp 10.0.0.1:3307: i/o timeout", "dial tcp 10.0.0.1:3307: i/o timeout"},
		{"failed to connect to postgres://u:hunter2@h/db: refused", "failed to connect to postgres://u:xxxxx@h/db: refused"},
		{"host=h user=u password=hunter2 dbname=d", "host=h user=u password=xxxxx dbname=d"},
		{"mysql://root:hunter2@127.0.0.1:3306/test", "mysql://root:xxxxx@127.0.0.1:3306/test"},
		// URLs: the user's password and the secret query parameters.
		{"postgres://u:pw1@h/d?sslpassword=ssl2&sslmode=require", "postgres://u:xxxxx@h/d?sslmode=require&sslpassword=xxxxx"},
		{"postgres://h/d?SSLPassword=ssl2", "postgres://h/d?SSLPassword=xxxxx"},
		{"postgres://h/d?pass%77ord=pw1", "postgres://h/d?password=xxxxx"},
		// go-mssqldb's URLs, with the password in the user part or in the
		// query, and its ADO connection strings.
		{"sqlserver://sa:hunter2@127.0.0.1:1433?database=db&encrypt=disable", "sqlserver://sa:xxxxx@127.0.0.1:1433?database=db&encrypt=disable"},
		{"sqlserver://127.0.0.1?user+id=sa&Password=hunter2", "sqlserver://127.0.0.1?Password=xxxxx&user+id=sa"},
		{"server=127.0.0.1;user id=sa;password=hunter2;database=db", "server=127.0.0.1;user id=sa;password=xxxxx"},
		{"postgres://h/d?oauth_client_secret=cs3", "postgres://h/d?oauth_client_secret=xxxxx"},
		{"mysql://root:pw1@127.0.0.1:3306/test?tls=custom&serverPubKey=k", "mysql://root:xxxxx@127.0.0.1:3306/test?tls=custom&serverPubKey=k"},
		// Paths and names are not secrets.
		{"postgres://h/d?sslkey=/k/client.key&sslcert=/k/c.crt&passfile=/home/u/.pgpass", "postgres://h/d?sslkey=/k/client.key&sslcert=/k/c.crt&passfile=/home/u/.pgpass"},
		// key=value connection strings, quoted values too.
		{"host=h password='p w' sslpassword=s2 dbname=d", "host=h password=xxxxx sslpassword=xxxxx dbname=d"},
		{"host=h sslpassword = 's\\'2' sslkey=/k/client.key", "host=h sslpassword = xxxxx sslkey=/k/client.key"},
		{"Server=h;UID=u;PWD=pw1", "Server=h;UID=u;PWD=xxxxx"},
		// Command-line arguments and messages quoting a URL.
		{"--db=postgres://u:pw1@h/d?sslpassword=ssl2", "--db=postgres://u:xxxxx@h/d?sslpassword=xxxxx"},
		{"cannot parse `postgres://h/d?sslpassword=ssl2&x=1`: invalid", "cannot parse `postgres://h/d?sslpassword=xxxxx&x=1`: invalid"},
		{"dsn=postgres://h/d?password=pw1", "dsn=postgres://h/d?password=xxxxx"},
		// A private key is a secret under any name.
		{"postgres://h/d?key=-----BEGIN+RSA+PRIVATE+KEY-----abc", "postgres://h/d?key=xxxxx"},
		// What holds no secret keeps its text.
		{"=HYPERLINK(1).sql", "=HYPERLINK(1).sql"},
		{"--rate=100", "--rate=100"},
	} {
		if got := redact.String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestArgsMasksACommandLineArgumentByArgument(t *testing.T) {
	got := redact.Args([]string{"dbharness", "run", "tpcb", "--db", "postgres://u:pw1@h/d?sslpassword=ssl2", "--db=mysql://r:pw3@h/d", "-T", "5"})
	want := []string{"dbharness", "run", "tpcb", "--db", "postgres://u:xxxxx@h/d?sslpassword=xxxxx", "--db=mysql://r:xxxxx@h/d", "-T", "5"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Args = %q, want %q", got, want)
	}
	if !redact.Hidden(got[4]) || !redact.Hidden(got[5]) || redact.Hidden(got[2]) {
		t.Error("Hidden does not tell what was masked")
	}
}

// No secret of a URL's query or of a key=value string survives String,
// whatever text comes before it.
func FuzzStringMasksSecretSettings(f *testing.F) {
	for _, s := range []string{"", "x", "postgres://u@h/d", "dbharness: cannot parse `", "a0:"} {
		f.Add(s, uint8(0), "SeKrEt9")
	}
	forms := []string{" ", "?", "&", "postgres://h/d?", "--db=postgres://u:p@h/d?a=1&", "host=h "}
	f.Fuzz(func(t *testing.T, junk string, form uint8, pw string) {
		if len(pw) < 4 || strings.ContainsAny(pw, "&'\\ \t\n\r\f\v%+#=?@:/") || strings.ContainsAny(junk, "'#") {
			return // a secret the forms cannot hold whole, or text that quotes or ends the URL before it
		}
		for _, key := range []string{"password", "sslpassword", "PWD"} {
			before := junk + forms[int(form)%len(forms)] + key + "="
			if strings.Contains(before+pw[:len(pw)-1], pw) || strings.Contains(redact.Mask, pw) {
				continue // the secret's text is also elsewhere
			}
			if got := redact.String(before + pw); strings.Contains(got, pw) {
				t.Fatalf("String(%q) = %q keeps the secret", before+pw, got)
			}
		}
	})
}

func TestSQLHidesPasswordsWrittenIntoStatements(t *testing.T) {
	for _, q := range []string{
		"ALTER ROLE app PASSWORD 'hunter2'",
		"CREATE USER app WITH ENCRYPTED PASSWORD 'hunter2' VALID UNTIL 'infinity'",
		"create user 'app'@'%' identified by 'hunter2'",
		"SET PASSWORD FOR app = PASSWORD('hunter2')",
		"SET PASSWORD = 'hunter2'",
		"ALTER USER app IDENTIFIED VIA mysql_native_password USING \"hunter2\"",
		"SELECT dblink_connect('host=db password=hunter2 dbname=x')",
		"SELECT * FROM dblink('postgres://u:hunter2@h/d', 'SELECT 1')",
	} {
		got := redact.SQL(q)
		if strings.Contains(got, "hunter2") || !strings.Contains(got, redact.Mask) {
			t.Errorf("redact.SQL(%q) = %q", q, got)
		}
	}
	if q := "UPDATE pgbench_branches SET bbalance = bbalance + 5 WHERE bid = 1"; redact.SQL(q) != q {
		t.Errorf("a statement without a secret changed: %q", redact.SQL(q))
	}
}
