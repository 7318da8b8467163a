package servermetrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

func TestWatchStateSaysEachChangeOnce(t *testing.T) {
	st := watchState{url: "http://h/metrics"}
	ok := model.ServerSample{Kind: KindVLLM}
	e404 := &Error{URL: "http://h/metrics", Kind: ErrStatus, Reason: "404", Status: 404}
	eTimeout := &Error{URL: "http://h/metrics", Kind: ErrTimeout, Reason: "no answer within 2s"}
	steps := []struct {
		err    error
		send   bool
		notice string
	}{
		{nil, true, "server metrics: vLLM at http://h/metrics"},
		{nil, true, ""},
		{e404, true, "server metrics: not available at http://h/metrics: 404"},
		{e404, false, ""},
		{&Error{URL: "http://h/metrics", Kind: ErrStatus, Reason: "404", Status: 404}, false, ""},
		{eTimeout, true, "server metrics: not available at http://h/metrics: no answer within 2s"},
		{eTimeout, false, ""},
		{nil, true, "server metrics: back at http://h/metrics"},
		{nil, true, ""},
		{e404, true, "server metrics: not available at http://h/metrics: 404"},
	}
	for i, s := range steps {
		var smp model.ServerSample
		if s.err == nil {
			smp = ok
		}
		u, send := st.next(smp, s.err)
		if send != s.send || u.Notice != s.notice {
			t.Errorf("step %d: send %v notice %q, want %v %q", i, send, u.Notice, s.send, s.notice)
		}
		if send && (u.Err == nil) != (s.err == nil) {
			t.Errorf("step %d: update error %v, want %v", i, u.Err, s.err)
		}
	}
}

func TestWatchScrapesUntilCanceled(t *testing.T) {
	var mode atomic.Int32 // 0 serve, 1 404
	var gen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mode.Load() == 1 {
			http.NotFound(w, r)
			return
		}
		n := gen.Add(100)
		_, _ = w.Write([]byte("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 3\n" +
			"# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total " + strconv.FormatInt(n, 10) + "\n"))
	}))
	defer srv.Close()
	s, err := New(Config{URL: srv.URL + "/metrics"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := s.Watch(ctx, 10*time.Millisecond)

	next := func() Update {
		t.Helper()
		select {
		case u, ok := <-ch:
			if !ok {
				t.Fatal("channel closed early")
			}
			return u
		case <-time.After(5 * time.Second):
			t.Fatal("no update within 5 s")
		}
		return Update{}
	}
	if u := next(); u.Err != nil || !strings.HasPrefix(u.Notice, "server metrics: vLLM at ") || u.Sample.Running != 3 {
		t.Fatalf("first update %+v", u)
	}
	if u := next(); u.Notice != "" || u.Sample.Generated <= 100 {
		t.Fatalf("second update %+v: want a quiet sample with a higher counter", u)
	}
	mode.Store(1)
	for u := next(); u.Err == nil; u = next() {
	}
	// Several failed scrapes, said once: the next update is the recovery.
	time.Sleep(60 * time.Millisecond)
	mode.Store(0)
	u := next()
	if u.Err != nil || !strings.HasPrefix(u.Notice, "server metrics: back at ") {
		t.Fatalf("after the outage: %+v, want the recovery said once", u)
	}
	cancel()
	for range ch {
	}
}
