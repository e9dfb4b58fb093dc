package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/doctor"
)

type doctorOpts struct {
	db      string
	clients int
	json    bool
}

func (o *doctorOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL whose server to check as well (default: $DBHARNESS_DB; without either, the host only)")
	fs.IntVarP(&o.clients, "clients", "c", 1, "the clients the run will open, held against the server's free connections")
	fs.BoolVar(&o.json, "json", false, "print the checks as JSON: {\"status\", \"checks\": [{\"section\", \"name\", \"status\", \"value\", \"advice\"}]}")
}

// doctorJSON is `doctor --json`'s document (docs/doctor.md): status is
// "warn" when any check warns, else "ok".
type doctorJSON struct {
	Status string         `json:"status"`
	Target string         `json:"target,omitempty"`
	Checks []doctor.Check `json:"checks"`
}

func (a *app) cmdDoctor(args []string) error {
	var o doctorOpts
	fs, err := a.parseSimple("doctor", args, o.flags)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("`dbharness doctor` takes no arguments (got %q); name the database with --db", fs.Arg(0))
	}
	if o.clients < 1 {
		return usagef("--clients %d: give 1 or more", o.clients)
	}
	var t *db.Target
	if o.db != "" || os.Getenv(envDB) != "" {
		if t, err = parseTarget(o.db); err != nil {
			return err
		}
		if err := t.CheckExists(); err != nil {
			return err
		}
	}
	ctx, cancel := a.interruptible("\ndbharness: interrupted")
	defer cancel()
	// The server is checked during the host's second.
	probe := doctor.StartHost(time.Second)
	var server []doctor.Check
	if t != nil {
		server = a.serverChecks(ctx, t, o.clients)
	}
	checks := append(probe.Finish(ctx, nil), server...)
	if ctx.Err() != nil {
		return exitError{ExitInterrupted, "doctor interrupted"}
	}
	doc := doctorJSON{Status: "ok", Checks: checks}
	if t != nil {
		doc.Target = t.String()
	}
	warnings := len(doctor.Warnings(checks))
	if warnings > 0 {
		doc.Status = "warn"
	}
	if o.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else {
		printDoctor(a, doc)
	}
	if warnings > 0 {
		return exitError{code: ExitFail}
	}
	return nil
}

// serverChecks runs the engine's checks of t's server; a server that
// cannot be reached, or an engine without checks, is one check that says
// so.
func (a *app) serverChecks(ctx context.Context, t *db.Target, clients int) []doctor.Check {
	fail := func(err error) []doctor.Check {
		return []doctor.Check{{Section: "server", Name: "connection", Status: "warn", Value: oneLine(err.Error()),
			Advice: "the server cannot be checked: start it, or correct --db"}}
	}
	d, err := db.Open(t)
	if err != nil {
		return fail(err)
	}
	defer d.Close()
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	cs, ok, err := doctor.Server(cctx, d, clients)
	switch {
	case !ok:
		return []doctor.Check{{Section: "server", Name: "checks", Status: "info", Value: fmt.Sprintf("the %s engine has no checks", t.Kind)}}
	case err != nil:
		return fail(err)
	}
	return cs
}

// printDoctor writes the checks in one screen: a line each, and a
// warning's advice under it.
func printDoctor(a *app, doc doctorJSON) {
	section := ""
	for _, c := range doc.Checks {
		if c.Section != section {
			section = c.Section
			if section == "server" && doc.Target != "" {
				fmt.Fprintf(a.stdout, "server %s\n", doc.Target)
			} else {
				fmt.Fprintln(a.stdout, section)
			}
		}
		fmt.Fprintf(a.stdout, "  %-5s %-31s %s\n", strings.ToUpper(c.Status), c.Name, c.Value)
		if c.Advice != "" {
			fmt.Fprintf(a.stdout, "        %s\n", c.Advice)
		}
	}
	n := len(doctor.Warnings(doc.Checks))
	switch n {
	case 0:
		fmt.Fprintln(a.stdout, "all OK")
	case 1:
		fmt.Fprintln(a.stdout, "1 warning")
	default:
		fmt.Fprintf(a.stdout, "%d warnings\n", n)
	}
}
