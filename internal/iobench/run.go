package iobench

import (
	"math"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/results"
)

// MiB is 2^20 bytes, the unit of the probe's bandwidths.
const MiB = 1 << 20

func round2(f float64) float64 { return math.Round(f*100) / 100 }
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// Describe is what a run records about the probe besides its steps.
type Describe struct {
	Command     []string
	Percentiles []float64
	Flags       map[string]string
	Host        hostinfo.Host
}

// ToRun turns a pattern's result into a run for the results store: one op
// per step (its I/Os and their latencies), the ticks as intervals, and
// the storage figures under run.IO.
func (p *Probe) ToRun(res *Result, id string, d Describe) *results.Run {
	ps := results.NormalizePercentiles(d.Percentiles)
	r := &results.Run{
		SchemaVersion: results.SchemaVersion,
		RunID:         id,
		Status:        results.StatusCompleted,
		Workload:      "io-" + string(res.Pattern),
		Command:       d.Command,
		Target:        p.cfg.Dir,
		Engine:        results.EngineInfo{Engine: p.FS.Type, Version: p.FS.Device},
		Host:          d.Host,
		StartTime:     res.Start,
		EndTime:       res.End,
		ErrorClasses:  map[string]int64{},
		Config: results.Config{Percentiles: ps, IntervalSeconds: p.cfg.Interval.Seconds(), MaxTries: 1,
			WorkloadFlags: d.Flags},
	}
	if res.Interrupted {
		r.Status = results.StatusInterrupted
	}
	io := &results.IO{Pattern: string(res.Pattern), Dir: p.cfg.Dir, Filesystem: p.FS.Type, Device: p.FS.Device,
		Mode: res.Mode, Direct: p.Direct}
	if res.Pattern != LogWrite {
		io.SizeBytes = p.cfg.Size
	}
	if res.Pattern == SeqWrite {
		io.CRC = p.cfg.CRC
	}
	if res.Pattern == SeqRead || res.Pattern == RandRead {
		io.Verify = p.cfg.Verify
	}
	for _, n := range []string{p.DirectNote, p.diskNote} {
		if n != "" {
			io.Notes = append(io.Notes, n)
		}
	}
	all := histogram.New()
	var cpu time.Duration
	seq := 0
	for _, st := range res.Steps {
		all.Merge(st.Hist)
		cpu += st.CPU
		s := results.IOStep{Name: st.Name, Threads: st.Threads, BlockBytes: st.Block, Bytes: st.Bytes, IOs: st.IOs,
			Seconds: st.Seconds, CPUSeconds: st.CPU.Seconds(), LatencyMs: results.LatencyOf(st.Hist, ps)}
		if st.SyncHist != nil {
			s.SyncMs = results.LatencyOf(st.SyncHist, ps)
		}
		if st.Disk != nil {
			v := results.DiskView(*st.Disk)
			v.AvgRequestKB, v.AvgQueue, v.AwaitMs, v.UtilPct = round2(v.AvgRequestKB), round2(v.AvgQueue), round3(v.AwaitMs), round2(v.UtilPct)
			s.Disk = &v
		}
		// Rates from the exact times, which are then rounded.
		s.SetRates()
		s.Seconds, s.CPUSeconds = round3(s.Seconds), round3(s.CPUSeconds)
		io.Steps = append(io.Steps, s)
		op := results.Op{Name: st.Name, Count: st.IOs, TPS: s.IOPS, LatencyMs: s.LatencyMs, Histogram: results.EncodeHist(st.Hist)}
		r.Ops = append(r.Ops, op)
		r.Summary.Transactions += st.IOs
		r.Summary.Seconds += st.Seconds
		r.Config.Clients = max(r.Config.Clients, st.Threads)
		var stepIOs int64
		var stepSecs float64
		for _, tk := range st.Ticks {
			if tk.Seconds <= 0 && tk.IOs == 0 {
				continue
			}
			stepIOs += tk.IOs
			stepSecs += tk.Seconds
			iv := results.Interval{Seq: seq, Phase: "measure", T: round3(tk.Elapsed.Seconds()), Seconds: round3(tk.Seconds),
				Count: tk.IOs, LatencyMs: results.LatencyOf(tk.Hist, ps)}
			if tk.Seconds > 0 {
				iv.TPS = round2(float64(tk.IOs) / tk.Seconds)
			}
			if stepSecs > 0 {
				iv.CumulativeTPS = round2(float64(stepIOs) / stepSecs)
			}
			iv.Ops = []results.IntervalOp{{Name: st.Name, Count: tk.IOs, TPS: iv.TPS, LatencyMs: iv.LatencyMs}}
			r.Intervals = append(r.Intervals, iv)
			seq++
		}
	}
	r.Summary.Seconds = round3(r.Summary.Seconds)
	if r.Summary.Seconds > 0 {
		r.Summary.TPS = round2(float64(r.Summary.Transactions) / r.Summary.Seconds)
	}
	r.Summary.LatencyMs = results.LatencyOf(all, ps)
	r.Summary.ClientCPUSeconds = round3(cpu.Seconds())
	if r.Summary.Transactions > 0 {
		r.Summary.ClientCPUUsPerTx = round2(float64(cpu.Microseconds()) / float64(r.Summary.Transactions))
	}
	if res.Pattern == LogWrite {
		io.CommitCeiling = commitCeiling(res.Steps)
	}
	r.IO = io
	return r
}

// commitCeiling is 1 / the median fdatasync time of the first
// single-stream log step: the most commits per second one stream can make
// when each commit waits for its log write to be durable.
func commitCeiling(steps []Step) float64 {
	for _, st := range steps {
		if st.Threads == 1 && st.SyncHist != nil && st.SyncHist.TotalCount() > 0 {
			return ceilingOf(st.SyncHist)
		}
	}
	return 0
}

func ceilingOf(h *hdr.Histogram) float64 {
	med := h.ValueAtQuantile(50)
	if med <= 0 {
		return 0
	}
	return round2(1e6 / float64(med))
}

// FlagString formats a list of sizes for the run's recorded flags.
func FlagString(vals []int, size bool) string {
	s := ""
	for i, v := range vals {
		if i > 0 {
			s += ","
		}
		if size {
			s += FormatSize(int64(v))
		} else {
			s += strconv.Itoa(v)
		}
	}
	return s
}
