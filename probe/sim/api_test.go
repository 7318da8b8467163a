package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// named is one SSE event with its `event:` name.
type named struct {
	name string
	data map[string]any
}

// sendNamed posts body to path and reads the event stream, pairing each data line with
// the event: line before it; status and body for a non-200 answer.
func sendNamed(t *testing.T, c *http.Client, inst *Instance, path, body string) (evs []named, status int, errBody string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, inst.URL+path, strings.NewReader(body))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, resp.StatusCode, string(b)
	}
	sc := bufio.NewScanner(resp.Body)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("data is not JSON: %v: %s", err, line)
			}
			if m["type"] != name {
				t.Errorf("event %q carries data of type %v", name, m["type"])
			}
			evs = append(evs, named{name, m})
			name = ""
		case line != "":
			t.Errorf("unexpected line %q", line)
		}
	}
	return evs, resp.StatusCode, ""
}

func names(evs []named) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.name
	}
	return out
}

func get(m map[string]any, path ...string) any {
	var v any = m
	for _, k := range path {
		mm, _ := v.(map[string]any)
		v = mm[k]
	}
	return v
}

// The Messages API stream: message_start with the prompt's tokens, a thinking block
// then a text block, a ping, usage only at the end, message_stop.
func TestMessagesStream(t *testing.T) {
	inst, c := startSim(t, Config{ReasoningTokens: 3, TokensPerChunk: 2})
	evs, status, _ := sendNamed(t, c, inst, "/messages",
		`{"model":"m","max_tokens":8,"stream":true,"system":"Be brief.","messages":[{"role":"user","content":"Say something long."}],"ignore_eos":true}`)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	got := strings.Join(names(evs), " ")
	want := "message_start content_block_start ping content_block_delta content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got != want {
		t.Fatalf("events\n %s\nwant\n %s", got, want)
	}
	if n := get(evs[0].data, "message", "usage", "input_tokens").(float64); n < 8 {
		t.Errorf("message_start input_tokens %v", n)
	}
	var thinking, text, sig int
	for _, e := range evs {
		switch get(e.data, "delta", "type") {
		case "thinking_delta":
			thinking += len(strings.Fields(get(e.data, "delta", "thinking").(string)))
		case "text_delta":
			text += len(strings.Fields(get(e.data, "delta", "text").(string)))
		case "signature_delta":
			sig++
		}
	}
	if thinking != 3 || text != 5 || sig != 1 {
		t.Errorf("thinking %d words, text %d, signatures %d; want 3, 5, 1", thinking, text, sig)
	}
	md := evs[len(evs)-2].data
	if get(md, "delta", "stop_reason") != "max_tokens" || get(md, "usage", "output_tokens").(float64) != 8 {
		t.Errorf("message_delta = %v", md)
	}
}

// A dropped Messages stream ends with an error event, as Anthropic's overloaded API
// does; errors before the stream are in the Messages API's shape.
func TestMessagesErrors(t *testing.T) {
	inst, c := startSim(t, Config{DropRate: 1})
	evs, _, _ := sendNamed(t, c, inst, "/messages", `{"model":"m","max_tokens":20,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	last := evs[len(evs)-1]
	if last.name != "error" || get(last.data, "error", "type") != "overloaded_error" {
		t.Errorf("a dropped stream ends with %s %v", last.name, last.data)
	}
	for _, e := range evs {
		if e.name == "message_stop" {
			t.Error("a dropped stream sent message_stop")
		}
	}
	_, status, body := sendNamed(t, c, inst, "/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	var e struct {
		Type  string
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || status != 400 || e.Type != "error" || e.Error.Type != "invalid_request_error" ||
		!strings.Contains(e.Error.Message, "max_tokens") {
		t.Errorf("no max_tokens: %d %s", status, body)
	}
	_, status, body = sendNamed(t, c, inst, "/messages", `{"model":"other","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	if status != 404 || !strings.Contains(body, `"not_found_error"`) {
		t.Errorf("unknown model: %d %s", status, body)
	}
}

// The Responses API stream: created and in_progress first, a reasoning item then a
// message item, usage only in the final response; max_output_tokens reached ends with
// response.incomplete.
func TestResponsesStream(t *testing.T) {
	inst, c := startSim(t, Config{ReasoningTokens: 2})
	evs, status, _ := sendNamed(t, c, inst, "/responses",
		`{"model":"m","stream":true,"max_output_tokens":6,"instructions":"Be brief.","input":[{"role":"user","content":"Say something long."}],"ignore_eos":true}`)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	got := strings.Join(names(evs), " ")
	want := "response.created response.in_progress response.output_item.added response.reasoning_text.delta response.reasoning_text.delta " +
		"response.reasoning_text.done response.output_item.done response.output_item.added response.content_part.added " +
		strings.Repeat("response.output_text.delta ", 4) +
		"response.output_text.done response.content_part.done response.output_item.done response.incomplete"
	if got != want {
		t.Fatalf("events\n %s\nwant\n %s", got, want)
	}
	for i, e := range evs {
		if e.data["sequence_number"].(float64) != float64(i) {
			t.Errorf("event %d has sequence_number %v", i, e.data["sequence_number"])
		}
	}
	end := evs[len(evs)-1].data
	if get(end, "response", "status") != "incomplete" || get(end, "response", "usage", "output_tokens").(float64) != 6 ||
		get(end, "response", "usage", "input_tokens").(float64) < 8 || get(end, "response", "incomplete_details", "reason") != "max_output_tokens" {
		t.Errorf("the end = %v", end)
	}
	if get(evs[0].data, "response", "usage") != nil {
		t.Errorf("usage before the end: %v", evs[0].data)
	}
	// A string input, answered in full (no ignore_eos and a model that stops): completed.
	inst2, c2 := startSim(t, Config{})
	for range 20 {
		evs, _, _ = sendNamed(t, c2, inst2, "/responses", `{"model":"m","stream":true,"max_output_tokens":40,"input":"Hi"}`)
		if evs[len(evs)-1].name == "response.completed" {
			return
		}
	}
	t.Error("no answer ended with response.completed")
}

func TestResponsesDropFails(t *testing.T) {
	inst, c := startSim(t, Config{DropRate: 1})
	evs, _, _ := sendNamed(t, c, inst, "/responses", `{"model":"m","stream":true,"max_output_tokens":20,"input":"Hi"}`)
	if last := evs[len(evs)-1]; last.name != "response.failed" || get(last.data, "response", "error", "code") != "server_error" {
		t.Errorf("a dropped stream ends with %s %v", last.name, last.data)
	}
}

// A conversation's later turn over the Messages and Responses APIs begins with its
// earlier turns: the prefix cache finds them.
func TestPrefixCacheAcrossTurns(t *testing.T) {
	long := strings.Repeat("tell me more about the weather ", 40)
	for _, tc := range []struct{ path, turn1, turn2 string }{
		{"/messages", `{"model":"m","max_tokens":4,"stream":true,"messages":[{"role":"user","content":"` + long + `"}]}`,
			`{"model":"m","max_tokens":4,"stream":true,"messages":[{"role":"user","content":"` + long + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"and?"}]}`},
		{"/responses", `{"model":"m","max_output_tokens":4,"stream":true,"input":[{"role":"user","content":"` + long + `"}]}`,
			`{"model":"m","max_output_tokens":4,"stream":true,"input":[{"role":"user","content":"` + long + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"and?"}]}`},
	} {
		inst, c := startSim(t, Config{PrefixCacheTokens: 100000})
		sendNamed(t, c, inst, tc.path, tc.turn1)
		hits0, _ := inst.Server.PrefixCache()
		sendNamed(t, c, inst, tc.path, tc.turn2)
		hits, looked := inst.Server.PrefixCache()
		if hits0 != 0 || hits-hits0 < 250 {
			t.Errorf("%s: the second turn found %d of its tokens cached (of %d looked up), want most of the first turn's ~300", tc.path, hits-hits0, looked)
		}
		// The server's view: vLLM's prefix-cache counters.
		text := string(inst.Server.metricsText())
		for _, want := range []string{
			fmt.Sprintf("vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} %d\n", hits),
			fmt.Sprintf("vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} %d\n", looked),
		} {
			if !strings.Contains(text, want) {
				t.Errorf("/metrics lacks %q:\n%s", want, text)
			}
		}
	}
}

// The simulator's faults act on the Messages and Responses APIs too: a stream error
// ends the stream with the API's own error event after some tokens (counted a
// stream_error), and a refusal answers their routes as it does chat's.
func TestFaultsOverMessagesAndResponses(t *testing.T) {
	inst, c := startSim(t, Config{StreamErrorRate: 1, TokensPerChunk: 4})
	for _, k := range []struct{ path, body, last string }{
		{"/messages", `{"model":"m","max_tokens":20,"stream":true,"ignore_eos":true,"messages":[{"role":"user","content":"Hi"}]}`, "error"},
		{"/responses", `{"model":"m","max_output_tokens":20,"stream":true,"ignore_eos":true,"input":"Hi"}`, "response.failed"},
	} {
		evs, status, _ := sendNamed(t, c, inst, k.path, k.body)
		got := names(evs)
		if status != 200 || len(got) == 0 || got[len(got)-1] != k.last || !slices.ContainsFunc(got, func(n string) bool { return strings.HasSuffix(n, "delta") }) {
			t.Errorf("%s with a stream error: status %d, events %v; want some tokens, then %s", k.path, status, got, k.last)
		}
	}
	if st := inst.Server.Stats(); st.Errors["stream_error"] != 2 || st.Completed != 0 {
		t.Errorf("stats %+v: want 2 stream errors", st)
	}

	inst, c = startSim(t, Config{Refuse: 429})
	for _, path := range []string{"/messages", "/responses"} {
		if _, status, _ := sendNamed(t, c, inst, path, `{"model":"m","max_tokens":20,"stream":true,"input":"Hi","messages":[{"role":"user","content":"Hi"}]}`); status != 429 {
			t.Errorf("%s refused with %d, want 429", path, status)
		}
	}
}

// TestErrorRateSaysItsRate: an HTTP 500 of --error-rate says the rate that caused it, not
// the profile's name (a flag set it: "the \"datacenter\" profile fails 0.05" blamed the
// profile).
func TestErrorRateSaysItsRate(t *testing.T) {
	inst, c := startSim(t, Config{Name: "datacenter", ErrorRate: 1})
	r := send(context.Background(), t, c, inst, "/chat/completions", chatBody(""))
	if e := decodeError(t, r); r.status != 500 || !strings.Contains(e.Error.Message, "fails 100% of requests (its error rate: --error-rate") ||
		strings.Contains(e.Error.Message, "profile fails") {
		t.Errorf("HTTP %d: %q", r.status, e.Error.Message)
	}
}
