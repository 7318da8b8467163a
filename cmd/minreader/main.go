// Command minreader is the baseline for tpsmon's load run: a closed loop of N streaming
// chat requests whose reader only counts content events (a byte search on each SSE line,
// no JSON decoding, no metrics). tpsmon's client CPU per token is held against it on the
// same simulator (docs/performance.md).
//
//	minreader --url http://127.0.0.1:8000/v1 --model sim-14b-h100 --concurrency 1000 --duration 30s
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8000/v1", "base URL of the endpoint")
	model := flag.String("model", "sim-14b-h100", "model name (default: the model of tpsmon sim's default profile)")
	conc := flag.Int("concurrency", 100, "concurrent streams")
	dur := flag.Duration("duration", 30*time.Second, "how long to run")
	maxTokens := flag.Int("max-tokens", 256, "max_tokens per request")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: *conc, MaxConnsPerHost: 0}
	client := &http.Client{Transport: tr}
	body := []byte(fmt.Sprintf(`{"model":%q,"stream":true,"max_tokens":%d,"ignore_eos":true,`+
		`"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Tell me a long story."}]}`,
		*model, *maxTokens))

	var events, requests, failures atomic.Int64
	var firstErr atomic.Value // the first failure, to say why
	var mu sync.Mutex
	var ttfts []time.Duration
	cpu0 := processCPU()
	start := time.Now()
	var wg sync.WaitGroup
	for range *conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				n, ttft, err := stream(ctx, client, *url+"/chat/completions", body)
				events.Add(n)
				if ttft > 0 {
					mu.Lock()
					ttfts = append(ttfts, ttft)
					mu.Unlock()
				}
				if err != nil && ctx.Err() == nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
				requests.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	n := events.Load()
	fmt.Printf("minreader: %d streams, %.1f s, %d requests (%d failed), %d content events, %.0f events/s\n",
		*conc, elapsed.Seconds(), requests.Load(), failures.Load(), n, float64(n)/elapsed.Seconds())
	if e, ok := firstErr.Load().(string); ok {
		fmt.Printf("minreader: first failure: %s\n", e)
	}
	if n > 0 {
		fmt.Printf("minreader: CPU %.2f s = %.2f us per content event (%.1f ms per 1,000)\n",
			cpu.Seconds(), float64(cpu.Microseconds())/float64(n), float64(cpu.Microseconds())/float64(n))
	}
	if len(ttfts) > 0 {
		slices.Sort(ttfts)
		q := func(p float64) float64 { return float64(ttfts[int(p*float64(len(ttfts)-1))]) / 1e6 }
		fmt.Printf("minreader: TTFT p50 %.1f ms, p95 %.1f ms over %d requests\n", q(0.50), q(0.95), len(ttfts))
	}
	if n == 0 {
		os.Exit(1)
	}
}

var contentKey = []byte(`"content":"`)

// stream sends one request and counts the SSE data lines that carry non-empty content;
// it also returns the time from just before sending to the first such line.
func stream(ctx context.Context, c *http.Client, url string, body []byte) (int64, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	sent := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return 0, 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(head))
	}
	r := bufio.NewReaderSize(resp.Body, 4096)
	var n int64
	var ttft time.Duration
	for {
		line, err := r.ReadSlice('\n')
		if i := bytes.Index(line, contentKey); i >= 0 && len(line) > i+len(contentKey) && line[i+len(contentKey)] != '"' {
			if n == 0 {
				ttft = time.Since(sent)
			}
			n++
		}
		if err != nil {
			if err == io.EOF {
				return n, ttft, nil
			}
			return n, ttft, err
		}
	}
}
