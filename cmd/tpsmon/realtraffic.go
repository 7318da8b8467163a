package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/workload"
	"go.yaml.in/yaml/v3"
)

// realFlags are the flags of traces and conversations (issue 18).
type realFlags struct {
	trace       string
	traceSpeed  float64
	traceWindow time.Duration
	turns       string
	history     string
	thinkTime   time.Duration
}

func (r *realFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&r.trace, "trace", "", `replay a timestamped trace on its schedule (open loop; Mooncake JSON Lines as NVIDIA AIPerf reads them: {"timestamp": ms, "input_length": N, "output_length": N, "hash_ids": [...]} or "text_input"/"messages"); its windows are the levels (bench only)`)
	fs.Float64Var(&r.traceSpeed, "trace-speed", 1, "replay the trace this many times faster (2: twice as fast, 0.5: half as fast)")
	fs.DurationVar(&r.traceWindow, "trace-window", 0, "the trace's levels are windows of this long of the trace (default: a tenth of the trace, at least 10s)")
	fs.StringVar(&r.turns, "turns", "first", "with --dataset: first (each request the first turn alone), all (each user plays a conversation turn by turn, every request carrying the history) or N (the first N turns)")
	fs.StringVar(&r.history, "history", "dataset", "with --turns: the answers in the history are the dataset's (dataset) or the server's own (live)")
	fs.DurationVar(&r.thinkTime, "think-time", 0, "with --turns: a user's pause between an answer and the next turn (not part of TTFT)")
}

// realConfig is the config file's keys of traces and conversations (in workload).
type realConfig struct {
	Trace       *string  `yaml:"trace"`
	TraceSpeed  *float64 `yaml:"trace_speed"`
	TraceWindow *posDur  `yaml:"trace_window"`
	Turns       *string  `yaml:"turns"`
	History     *string  `yaml:"history"`
	ThinkTime   *zeroDur `yaml:"think_time"`
}

// zeroDur is a duration of 0 or more.
type zeroDur time.Duration

func (z *zeroDur) UnmarshalYAML(n *yaml.Node) error {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d < 0 {
		return lineError(n, "want a duration with a unit such as 2s, or 0, got %q", n.Value)
	}
	*z = zeroDur(d)
	return nil
}

// fromConfig takes the config's keys where the flags were not given.
func (r *realFlags) fromConfig(c realConfig, changed func(string) bool) {
	if c.Trace != nil && !changed("trace") {
		r.trace = *c.Trace
	}
	if c.TraceSpeed != nil && !changed("trace-speed") {
		r.traceSpeed = *c.TraceSpeed
	}
	if c.TraceWindow != nil && !changed("trace-window") {
		r.traceWindow = time.Duration(*c.TraceWindow)
	}
	if c.Turns != nil && !changed("turns") {
		r.turns = *c.Turns
	}
	if c.History != nil && !changed("history") {
		r.history = *c.History
	}
	if c.ThinkTime != nil && !changed("think-time") {
		r.thinkTime = time.Duration(*c.ThinkTime)
	}
}

// talkPlan is a run of conversations: the pools' source and think time, and the
// report's words for them.
type talkPlan struct {
	src            *workload.Conversations
	think          time.Duration
	turns, history string
}

// resolveReal reads --trace and --turns (with their companions) into the plan: a trace
// replaces the ramp with its windows and runs open loop; conversations make each user
// one. It runs after the workload, the ramp and rate mode are resolved.
func (p *plan) resolveReal(f *runFlags, w *client.Endpoint, changed func(string) bool) error {
	r := &f.real
	if err := r.check(f, changed); err != nil {
		return err
	}
	if r.trace != "" {
		return p.resolveTrace(f, w)
	}
	turns, err := workload.ParseTurns(r.turns)
	if err != nil {
		return usageErrorf("--turns %q: want first, all or a number of turns such as 3", r.turns)
	}
	if turns == 1 {
		return nil
	}
	entries, _, err := workload.LoadDialogs(f.traffic.dataset)
	if err != nil {
		return datasetError(f.traffic.dataset, err)
	}
	src, err := workload.NewConversations(entries, f.traffic.seed, f.traffic.prefixTokens, turns, r.history == "live")
	if err != nil {
		return usageErrorf("--dataset %s: %v", f.traffic.dataset, err)
	}
	w.Workload = nil // each user's conversation says what it sends (probe.WithConversations)
	p.talk = &talkPlan{src: src, think: r.thinkTime, turns: strings.ToLower(r.turns), history: r.history}
	p.workload += fmt.Sprintf(" · %d conversations, %d turns", src.Len(), src.Turns())
	return nil
}

// check refuses the flags of traces and conversations that do not go together,
// saying what to do.
func (r *realFlags) check(f *runFlags, changed func(string) bool) error {
	if r.history != "dataset" && r.history != "live" {
		return usageErrorf("--history %q: want dataset (the dataset's answers) or live (the server's own answers)", r.history)
	}
	if r.thinkTime < 0 {
		return usageErrorf("--think-time %s: want 0 or a positive duration such as 2s", r.thinkTime)
	}
	conv := strings.ToLower(strings.TrimSpace(r.turns)) != "first"
	if r.trace != "" {
		for _, c := range []struct {
			on   bool
			flag string
		}{{f.traffic.rate != "", "--rate"}, {changed("ramp"), "--ramp"}, {f.traffic.dataset != "", "--dataset"}, {conv, "--turns"},
			{f.traffic.prefixTokens > 0, "--prefix-tokens"}, {f.prompt != "", "--prompt"},
			{f.shard.shard != "" || f.shard.shards != 0, "--shard and --shards"}, {f.shard.startAt != "", "--start-at"}} {
			if c.on {
				return usageErrorf("--trace replays a trace's own requests on its own schedule: it excludes %s", c.flag)
			}
		}
		return nil
	}
	if changed("trace-speed") || changed("trace-window") {
		return usageErrorf("--trace-speed and --trace-window are for a trace: give --trace FILE too")
	}
	switch {
	case conv && f.traffic.dataset == "":
		return usageErrorf("--turns %s replays a dataset's conversations: give --dataset FILE too (ShareGPT, or JSON Lines with \"messages\")", r.turns)
	case conv && f.traffic.rate != "":
		return usageErrorf("--turns %s: in a conversation each user waits for an answer before the next turn (a user in closed loop is a conversation); drop --rate and walk users with --ramp", r.turns)
	case !conv && (changed("history") || changed("think-time")):
		return usageErrorf("--history and --think-time are for conversations: give --turns all (with --dataset) too")
	}
	return nil
}

// resolveTrace reads the trace and plans its replay.
func (p *plan) resolveTrace(f *runFlags, w *client.Endpoint) error {
	r := &f.real
	t, err := workload.LoadTrace(r.trace)
	if err != nil {
		var le *workload.TraceLineError
		if errors.As(err, &le) || errors.Is(err, workload.ErrEmptyTrace) {
			return usageErrorf("--trace %v", err)
		}
		return usageErrorf("--trace: %v", err)
	}
	setup, err := engine.PlanTrace(t, r.trace, r.traceSpeed, r.traceWindow, f.traffic.seed, f.traffic.maxConcurrency)
	var fe *client.FieldError
	if errors.As(err, &fe) {
		return usageErrorf("--%s %s", strings.ReplaceAll(fe.Field, "_", "-"), strings.TrimPrefix(fe.Error(), fe.Field+" "))
	} else if err != nil {
		return usageErrorf("--trace %s: %v", r.trace, err)
	}
	w.Workload = nil // the trace's lines say what is sent (probe.WithTrace)
	p.trace, p.ramp = setup, setup.Ramp
	p.rate = rateMode{on: true, maxConcurrency: f.traffic.maxConcurrency, seed: f.traffic.seed}
	p.workload = "" // the settings' trace line says it
	p.traceConns = traceConns(t, r.traceSpeed, f.traffic.maxConcurrency)
	return nil
}

// traceConns is the HTTP connections a trace needs: the cap, else room for the most
// requests the trace sends in any 5 s of replay (at least 64).
func traceConns(t *workload.Trace, speed float64, maxConcurrency int) int {
	if maxConcurrency > 0 {
		return maxConcurrency
	}
	at, most := t.Times(speed), 0
	for i, j := 0, 0; i < len(at); i++ {
		for at[i]-at[j] > 5*time.Second {
			j++
		}
		most = max(most, i-j+1)
	}
	return max(64, most)
}

// realOptions are the pools' options of a trace or of conversations (nil otherwise).
func (p *plan) realOptions() []probe.Option {
	switch {
	case p.trace != nil:
		return []probe.Option{p.trace.Option}
	case p.talk != nil:
		return []probe.Option{probe.WithConversations(p.talk.src, p.talk.think)}
	}
	return nil
}

// realConfigInto puts the trace and the conversations into the engine's config.
func (p *plan) realConfigInto(cfg *engine.Config) {
	if p.trace != nil {
		cfg.Trace = p.trace.Info
	}
	if t := p.talk; t != nil {
		cfg.Turns, cfg.History, cfg.Think = t.turns, t.history, t.think
	}
}
