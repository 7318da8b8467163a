//go:build unix

package sim

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStreams1000 is a small load run: 1,000 concurrent streams of 100 tokens through
// real HTTP on 127.0.0.1, read by minimal line readers in the same process. It reports
// the tokens/s delivered against the model's 1000/(20+0.01*1000) * 1000 = 33,333 tok/s
// and the process CPU and heap allocations (simulator plus readers, HTTP included) per
// token. Run it alone:
//
//	go test -run XXX -bench Streams1000 -benchtime 1x ./probe/sim/
func BenchmarkStreams1000(b *testing.B) {
	const users, tokens = 1000, 100
	inst, err := Start(context.Background(), "", Config{Model: "m", Slots: users, StepMs: 20, StepMsPerSeq: 0.01})
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: users}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	body := chatBody(`"max_tokens":100,"ignore_eos":true,"stream_options":{"include_usage":true}`)

	var got atomic.Int64
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var cpu time.Duration
	var wall time.Duration
	for b.Loop() {
		cpu0 := cpuTime()
		start := time.Now()
		var wg sync.WaitGroup
		for range users {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodPost, inst.URL+"/chat/completions", strings.NewReader(body))
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				defer resp.Body.Close()
				br := bufio.NewReader(resp.Body)
				n := 0
				for {
					line, err := br.ReadSlice('\n')
					if bytes.HasPrefix(line, []byte(`data: {`)) && bytes.Contains(line, []byte(`"content":"`)) &&
						!bytes.Contains(line, []byte(`"content":""`)) {
						n++
					}
					if err != nil {
						break
					}
				}
				got.Add(int64(n))
			})
		}
		wg.Wait()
		wall += time.Since(start)
		cpu += cpuTime() - cpu0
	}
	if want := int64(b.N * users * tokens); got.Load() != want {
		b.Fatalf("read %d tokens, want %d", got.Load(), want)
	}
	runtime.ReadMemStats(&ms1)
	st := inst.Server.Stats()
	b.ReportMetric(float64(got.Load())/wall.Seconds(), "tok/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(got.Load()), "cpu-ms/1k-tok")
	b.ReportMetric(st.TTFT.P50, "server-ttft-p50-ms")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(got.Load()), "allocs/tok")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
