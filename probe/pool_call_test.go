package probe

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// callStreamer is a fake CallStreamer: every call is recorded with when it was sent;
// it answers after took, with "answer N" as the text when asked, and fails the calls
// whose prompt or last message holds "fail".
type callStreamer struct {
	took time.Duration

	mu    sync.Mutex
	calls []workload.Request
	sent  []time.Time
}

func (f *callStreamer) Stream(ctx context.Context, p *Progress) model.Sample {
	return f.StreamCall(ctx, p, &Call{})
}

func (f *callStreamer) StreamCall(ctx context.Context, p *Progress, c *Call) model.Sample {
	now := time.Now()
	f.mu.Lock()
	f.calls = append(f.calls, c.Req)
	f.sent = append(f.sent, now)
	n := len(f.calls)
	f.mu.Unlock()
	send := Mono()
	p.Send.Store(send)
	select {
	case <-time.After(f.took):
	case <-ctx.Done():
		return model.Sample{Send: MonoTime(send), End: time.Now(), Err: model.ErrCanceled}
	}
	t := Mono()
	p.First.Store(t)
	p.Chunks.Add(2)
	s := model.Sample{Send: MonoTime(send), First: MonoTime(t), Last: MonoTime(t + 1000), End: time.Now(), Tokens: 2, Chunks: 2, Finish: "stop"}
	if text := c.Req.Text(); strings.Contains(text[max(len(text)-20, 0):], "fail") {
		s.Err = model.ErrTruncated
	}
	if c.Req.KeepAnswer {
		c.Answer = append(c.Answer, fmt.Sprintf("answer %d", n)...)
	}
	return s
}

func (f *callStreamer) requests() ([]workload.Request, []time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]workload.Request(nil), f.calls...), append([]time.Time(nil), f.sent...)
}

// A trace is sent on its own schedule: line i at its moment, whatever the answers take
// and whatever level the engine sets, and nothing after the last line.
func TestPoolReplaysATrace(t *testing.T) {
	tr := &workload.Trace{}
	var at []time.Duration
	for i := range 6 {
		d := []time.Duration{0, 0, 100, 100, 400, 400}[i] * time.Millisecond
		tr.Entries = append(tr.Entries, workload.TraceEntry{At: d, Text: fmt.Sprintf("line %d", i), OutputTokens: 10 + i})
		at = append(at, d)
	}
	s := &callStreamer{took: 400 * time.Millisecond}
	p := NewPool(0, s, WithTrace(workload.NewTraceSource(tr, 1), at, 0))
	log := logEvents(p.Run(context.Background()))
	start := time.Now()
	p.SetConcurrency(1)
	time.Sleep(250 * time.Millisecond)
	p.SetConcurrency(2) // the next window: the pace does not change
	time.Sleep(800 * time.Millisecond)
	p.Stop()
	samples := sampleEvents(log.wait(t))
	reqs, sent := s.requests()
	if len(reqs) != 6 || len(samples) != 6 {
		t.Fatalf("%d requests sent, %d samples; want the trace's 6", len(reqs), len(samples))
	}
	seen := map[int]bool{}
	for k, r := range reqs { // lines due at the same moment go in any order
		var i int
		if _, err := fmt.Sscanf(r.Prompt, "line %d", &i); err != nil || r.MaxTokens != 10+i || seen[i] {
			t.Errorf("request %d = %+v", k, r)
			continue
		}
		seen[i] = true
		if late := sent[k].Sub(start) - at[i]; late < 0 || late > 140*time.Millisecond {
			t.Errorf("line %d sent %v after its moment", i, late)
		}
	}
	windows := map[int]int{}
	for _, sm := range samples {
		windows[sm.Concurrency]++
		if !sm.OpenLoop || sm.ClientWait > 140*time.Millisecond {
			t.Errorf("sample open loop %v, late %v", sm.OpenLoop, sm.ClientWait)
		}
	}
	if windows[1] != 4 || windows[2] != 2 {
		t.Errorf("samples by window %v, want 4 in window 1 and 2 in window 2", windows)
	}
}

// Each user plays a conversation turn by turn with the history, thinks between turns,
// and with live history the server's answer is in the next turn's history.
func TestPoolPlaysConversations(t *testing.T) {
	entries := []workload.Entry{{Messages: []workload.Message{
		{Role: "user", Content: "one"}, {Role: "assistant", Content: "1"},
		{Role: "user", Content: "two"}, {Role: "assistant", Content: "2"},
		{Role: "user", Content: "three"},
	}}}
	src, err := workload.NewConversations(entries, 1, 0, workload.TurnsAll, true)
	if err != nil {
		t.Fatal(err)
	}
	s := &callStreamer{took: 10 * time.Millisecond}
	think := 300 * time.Millisecond
	p := NewPool(0, s, WithConversations(src, think))
	log := logEvents(p.Run(context.Background()))
	p.SetConcurrency(1)
	time.Sleep(1200 * time.Millisecond)
	p.Stop()
	samples := sampleEvents(log.wait(t))
	reqs, sent := s.requests()
	if len(reqs) < 4 {
		t.Fatalf("%d requests in 1.2 s, want a conversation of 3 turns and the next one begun", len(reqs))
	}
	for i, r := range reqs[:4] {
		if want := i%3 + 1; r.Turn != want || samples[i].Turn != want {
			t.Errorf("request %d is turn %d (sample %d), want %d", i, r.Turn, samples[i].Turn, want)
		}
	}
	if h := reqs[2].Messages; len(h) != 5 || h[1].Content != "answer 1" || h[3].Content != "answer 2" || h[4].Content != "three" {
		t.Errorf("turn 3's history %+v: want the server's answers", h)
	}
	if gap := sent[1].Sub(sent[0]); gap < think {
		t.Errorf("turn 2 sent %v after turn 1: want the think time %v after its answer", gap, think)
	}
	if gap := sent[3].Sub(sent[2]); gap > think {
		t.Errorf("the next conversation began %v after the last turn: no think time before a first turn", gap)
	}
}

// A failed turn ends its conversation: the user begins the next one.
func TestPoolConversationEndsOnFailure(t *testing.T) {
	entries := []workload.Entry{{Messages: []workload.Message{
		{Role: "user", Content: "please fail"}, {Role: "assistant", Content: "1"}, {Role: "user", Content: "two"},
	}}}
	src, _ := workload.NewConversations(entries, 1, 0, workload.TurnsAll, false)
	s := &callStreamer{took: 5 * time.Millisecond}
	p := NewPool(0, s, WithConversations(src, 0))
	log := logEvents(p.Run(context.Background()))
	p.SetConcurrency(1)
	time.Sleep(300 * time.Millisecond)
	p.Stop()
	log.wait(t)
	reqs, _ := s.requests()
	for i, r := range reqs {
		if r.Turn != 1 {
			t.Fatalf("request %d is turn %d after a failed first turn", i, r.Turn)
		}
	}
}
