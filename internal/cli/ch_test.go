package cli_test

import "testing"

func TestCHBadInputIsOneSentenceAndExitTwoBeforeConnecting(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no terminal and no query stream", []string{"run", "ch", "--terminals", "0", "--query-streams", "0"}, "ch has nothing to run with 0 terminals and 0 query streams"},
		{"no client and no query stream", []string{"run", "ch", "-c", "0", "--query-streams", "0"}, "ch has nothing to run with 0 terminals and 0 query streams"},
		{"negative query streams", []string{"run", "ch", "--query-streams", "-1"}, "--query-streams -1 is negative"},
		{"negative query streams by go-tpc's name", []string{"run", "ch", "--acThreads=-3"}, "--query-streams -3 is negative"},
		{"negative terminals", []string{"run", "ch", "--terminals", "-2"}, "--terminals -2 is negative"},
		{"negative clients", []string{"run", "ch", "--clients", "-2"}, "--clients -2 is negative"},
		{"non-numeric query streams", []string{"run", "ch", "--query-streams", "two"}, `--query-streams "two" is not a whole number`},
		{"terminals and clients both", []string{"run", "ch", "--terminals", "2", "-c", "3"}, "give --terminals or --clients, not both"},
		{"keying and think times", []string{"run", "ch", "--terminals", "2", "--keying-think"}, "--keying-think is for emulated terminals"},
		{"an open loop", []string{"run", "ch", "--rate", "10"}, "--rate paces every client alike"},
		{"no warehouse", []string{"init", "ch", "-w", "0"}, "--warehouses 0 is out of range"},
		{"a swept negative stream count", []string{"sweep", "ch", "-c", "1", "--duration", "1s", "--vary", "query-streams=1,-1"}, "--query-streams -1 is negative"},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			refusedBeforeAnything(t, dbh(t, home, append(tc.args, "--db", closedPG)...), tc.want)
		})
	}
}
