package sweep

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

func TestBuildPlanRandomisesEachRoundReproducibly(t *testing.T) {
	vary := []results.VaryFlag{{Flag: "mix", Values: []string{"a", "b"}}}
	plan := Plan([]int{1, 2, 4, 8}, vary, 3, 42)
	if len(plan) != 24 {
		t.Fatalf("%d runs, want 4 clients x 2 values x 3 rounds", len(plan))
	}
	key := func(p results.SweepRun) string { return fmt.Sprintf("%d/%s", p.Clients, p.Vary["mix"]) }
	var orders []string
	for r := 0; r < 3; r++ {
		seen := map[string]bool{}
		var order []string
		for i, p := range plan[r*8 : r*8+8] {
			if p.Round != r+1 || p.Seq != r*8+i {
				t.Fatalf("entry %d: round %d seq %d", r*8+i, p.Round, p.Seq)
			}
			seen[key(p)] = true
			order = append(order, key(p))
		}
		if len(seen) != 8 {
			t.Errorf("round %d does not hold every point once: %v", r+1, order)
		}
		orders = append(orders, strings.Join(order, " "))
	}
	if orders[0] == orders[1] && orders[1] == orders[2] {
		t.Errorf("every round has the same order: %s", orders[0])
	}
	if !reflect.DeepEqual(plan, Plan([]int{1, 2, 4, 8}, vary, 3, 42)) {
		t.Error("the same seed gives another plan")
	}
	if reflect.DeepEqual(plan, Plan([]int{1, 2, 4, 8}, vary, 3, 43)) {
		t.Error("another seed gives the same plan")
	}
}

func TestAPlanWithoutVaryHasNoVaryMaps(t *testing.T) {
	plan := Plan([]int{1, 4}, nil, 2, 7)
	if len(plan) != 4 {
		t.Fatalf("%d runs, want 2 clients x 2 rounds", len(plan))
	}
	for _, p := range plan {
		if p.Vary != nil {
			t.Errorf("run %d has vary %v", p.Seq, p.Vary)
		}
	}
}

func TestResumeRefusesASweepALiveProcessRuns(t *testing.T) {
	host, _ := os.Hostname()
	sw := &results.Sweep{SweepID: "sw-1", Status: results.StatusRunning, Host: host, PID: os.Getppid()}
	if err := CheckResumable(sw); err == nil || !strings.Contains(err.Error(), "is still running (process") {
		t.Errorf("a live process: %v", err)
	}
	sw.PID = os.Getpid() // this process resumes its own sweep
	if err := CheckResumable(sw); err != nil {
		t.Errorf("this process: %v", err)
	}
	sw.PID, sw.Host = os.Getppid(), host+"-elsewhere"
	if err := CheckResumable(sw); err != nil {
		t.Errorf("another host: %v", err)
	}
	sw.Host, sw.Status = host, results.StatusInterrupted
	if err := CheckResumable(sw); err != nil {
		t.Errorf("an interrupted sweep: %v", err)
	}
}
