package settings

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/workload"
	"go.yaml.in/yaml/v3"
)

// Traffic is real traffic's settings (in the config file's workload block): a trace
// replayed on its schedule, or a dataset's conversations played turn by turn.
type Traffic struct {
	Trace       Value[string]
	TraceSpeed  Value[float64]
	TraceWindow Value[time.Duration] // 0: engine.DefaultTraceWindow
	Turns       Value[string]        // first, all or N
	History     Value[string]        // dataset or live
	ThinkTime   Value[time.Duration]
}

// trafficFlags registers the flags of traces and conversations.
func (f *Flags) trafficFlags(fs *pflag.FlagSet) {
	g, d := &f.Given.Workload.Traffic, &f.Defaults.Workload.Traffic
	bind(fs, &g.Trace, &d.Trace, text, "trace", "",
		`replay a timestamped trace on its schedule (open loop; Mooncake JSON Lines as NVIDIA AIPerf reads them: {"timestamp": ms, "input_length": N, "output_length": N, "hash_ids": [...]} or "text_input"/"messages"); its windows are the levels (bench only)`)
	bind(fs, &g.TraceSpeed, &d.TraceSpeed, decimal, "trace-speed", 1, "replay the trace this many times faster (2: twice as fast, 0.5: half as fast)")
	bind(fs, &g.TraceWindow, &d.TraceWindow, duration, "trace-window", 0,
		"the trace's levels are windows of about this long of the trace, split evenly (default: a tenth of the trace, at least 10s)")
	bind(fs, &g.Turns, &d.Turns, text, "turns", "first",
		"with --dataset: first (each request the first turn alone), all (each user plays a conversation turn by turn, every request carrying the history) or N (the first N turns)")
	bind(fs, &g.History, &d.History, text, "history", "dataset",
		"with --turns: the answers in the history are the dataset's (dataset) or the server's own (live)")
	bind(fs, &g.ThinkTime, &d.ThinkTime, duration, "think-time", 0,
		"with --turns: a user's pause between an answer and the next turn (not part of TTFT)")
}

// trafficLayer is the workload block's keys of traces and conversations as settings,
// each at its line.
func (t workloadFile) trafficLayer(at func(key string) Origin) Traffic {
	return Traffic{
		Trace:       opt(t.Trace, at("trace"), same),
		TraceSpeed:  opt(t.TraceSpeed, at("trace_speed"), same),
		TraceWindow: opt(t.TraceWindow, at("trace_window"), posDur.Duration),
		Turns:       opt(t.Turns, at("turns"), same),
		History:     opt(t.History, at("history"), same),
		ThinkTime:   opt(t.ThinkTime, at("think_time"), func(z zeroDur) time.Duration { return time.Duration(z) }),
	}
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

// Talk is a run of conversations: the pools' source and think time, and the report's
// words for them.
type Talk struct {
	Source         *workload.Conversations
	Think          time.Duration
	Turns, History string
}

// traffic plans a trace or conversations over the workload w and the walk already
// resolved: a trace replaces the walk with its windows and runs open loop; each user of
// a run of conversations is one. It refuses what does not go together, saying what to
// do.
func (p *Plan) traffic(s Settings, w *client.Endpoint) error {
	t := s.Workload.Traffic
	if err := checkTraffic(s, p.Rate.On); err != nil {
		return err
	}
	if t.Trace.V != "" && p.Command == Screen {
		return errorf("--trace replays a trace on its own schedule, window by window: run it with tpsmon bench --trace %s (the live screen walks users or rates by hand)", t.Trace.V)
	}
	if t.Trace.V != "" {
		return p.trace(s, w)
	}
	turns, err := workload.ParseTurns(t.Turns.V)
	if err != nil {
		return errorf("--turns %q: want first, all or a number of turns such as 3", t.Turns.V)
	}
	if turns == 1 {
		return nil
	}
	ds := s.Workload.Dataset.V
	entries, _, err := workload.LoadDialogs(ds)
	if err != nil {
		return datasetError(ds, err)
	}
	src, err := workload.NewConversations(entries, w.PromptSeed, s.Workload.PrefixTokens.V, turns, t.History.V == "live")
	if err != nil {
		return errorf("--dataset %s: %v", ds, err)
	}
	w.Workload = nil // each user's conversation says what it sends (probe.WithConversations)
	p.Talk = &Talk{Source: src, Think: t.ThinkTime.V, Turns: strings.ToLower(strings.TrimSpace(t.Turns.V)), History: t.History.V}
	p.Workload += fmt.Sprintf(" · %d conversations, %d turns", src.Len(), src.Turns())
	return nil
}

// conversing reports whether --turns asks for more than the first turn.
func conversing(t Traffic) bool { return !strings.EqualFold(strings.TrimSpace(t.Turns.V), "first") }

// given reports whether v was written (a flag or a config key), not a default.
func given[T any](v Value[T]) bool { return v.Set && v.From.Layer > Default }

// checkTraffic refuses the settings of traces and conversations that do not go
// together (rate: the walk is rate mode's).
func checkTraffic(s Settings, rate bool) error {
	t, wl := s.Workload.Traffic, s.Workload
	if h := t.History.V; h != "dataset" && h != "live" {
		return errorf("--history %q: want dataset (the dataset's answers) or live (the server's own answers)", h)
	}
	if t.Trace.V != "" {
		for _, c := range []struct {
			on   bool
			flag string
		}{{rate, s.Ramp.Rates.From.Where}, {s.Ramp.Levels.Given(), "--ramp"}, {wl.Dataset.V != "", wl.Dataset.From.Where},
			{conversing(t), t.Turns.From.Where}, {wl.PrefixTokens.V > 0, wl.PrefixTokens.From.Where}, {wl.Prompt.V != "", wl.Prompt.From.Where},
			{s.Shard.Shard.V != "" || s.Shard.Shards.V != 0, "--shard and --shards"}, {s.Shard.StartAt.V != "", "--start-at"}} {
			if c.on {
				return errorf("--trace replays a trace's own requests on its own schedule: it excludes %s", c.flag)
			}
		}
		return nil
	}
	switch {
	case given(t.TraceSpeed) || given(t.TraceWindow):
		return errorf("--trace-speed and --trace-window are for a trace: give --trace FILE too")
	case conversing(t) && wl.Dataset.V == "":
		return errorf("--turns %s replays a dataset's conversations: give --dataset FILE too (ShareGPT, or JSON Lines with \"messages\")", t.Turns.V)
	case conversing(t) && rate:
		return errorf("--turns %s: in a conversation each user waits for an answer before the next turn (a user in closed loop is a conversation); drop --rate and walk users with --ramp", t.Turns.V)
	case !conversing(t) && (given(t.History) || given(t.ThinkTime)):
		return errorf("--history and --think-time are for conversations: give --turns all (with --dataset) too")
	}
	return nil
}

// trace reads the trace and plans its replay.
func (p *Plan) trace(s Settings, w *client.Endpoint) error {
	t := s.Workload.Traffic
	tr, err := workload.LoadTrace(t.Trace.V)
	if err != nil {
		var le *workload.TraceLineError
		if errors.As(err, &le) || errors.Is(err, workload.ErrEmptyTrace) {
			return errorf("--trace %v", err) // err begins with the file's name
		}
		return errorf("--trace: %v", err)
	}
	capped := s.Ramp.MaxConcurrency.V
	setup, err := engine.PlanTrace(tr, t.Trace.V, t.TraceSpeed.V, t.TraceWindow.V, w.PromptSeed, capped)
	var fe *client.FieldError
	if errors.As(err, &fe) {
		return errorf("--%s %s", strings.ReplaceAll(fe.Field, "_", "-"), strings.TrimPrefix(fe.Error(), fe.Field+" "))
	} else if err != nil {
		return errorf("--trace %s: %v", t.Trace.V, err)
	}
	w.Workload = nil // the trace's lines say what is sent (probe.WithTrace)
	p.Trace, p.Ramp = setup, setup.Ramp
	p.Rate = RateMode{On: true, MaxConcurrency: capped, Seed: p.Rate.Seed}
	p.Workload = "" // the settings' trace line says it
	p.traceConns = traceConns(tr, t.TraceSpeed.V, capped)
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

// trafficEngine puts the trace or the conversations into the engine's config.
func (p *Plan) trafficEngine(cfg *engine.Config) {
	switch {
	case p.Trace != nil:
		cfg.Trace, cfg.Conns = p.Trace.Info, p.traceConns
		cfg.PoolOptions = []probe.Option{p.Trace.Option}
		cfg.OpenLoop = &engine.OpenLoop{Arrival: "trace", MaxConcurrency: p.Rate.MaxConcurrency}
	case p.Talk != nil:
		cfg.PoolOptions = append(cfg.PoolOptions, probe.WithConversations(p.Talk.Source, p.Talk.Think))
		cfg.Turns, cfg.History, cfg.Think = p.Talk.Turns, p.Talk.History, p.Talk.Think
	}
}
