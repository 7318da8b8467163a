package sim

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCloseAfterStream: with CloseAfterStream the simulator answers as llama.cpp's
// llama-server does: the stream's headers advertise keep-alive, and after the answer the
// server closes the socket anyway, so every stream needs a connection of its own; a
// plain client that reuses the connection at once finds it dead.
func TestCloseAfterStream(t *testing.T) {
	inst, _ := startSim(t, Config{Slots: 4, StepMs: 1, TokensPerChunk: 4, CloseAfterStream: true})
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	const n = 5
	for i := range n {
		r := send(context.Background(), t, c, inst, "/chat/completions", chatBody(`"max_tokens":8`))
		if r.readErr != nil || r.status != http.StatusOK || !r.done() {
			t.Fatalf("stream %d: status %d, err %v, done %v", i, r.status, r.readErr, r.done())
		}
		time.Sleep(20 * time.Millisecond) // let the close arrive: the transport dials anew
	}
	if got := dials.Load(); got != n {
		t.Errorf("%d connections for %d streams, want one each (the server closes after every stream)", got, n)
	}
	resp, err := c.Post(inst.URL+"/chat/completions", "application/json", strings.NewReader(chatBody(`"max_tokens":2`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Connection") != "keep-alive" || resp.Header.Get("Keep-Alive") == "" || resp.Close {
		t.Errorf("headers %v, Close %v: want keep-alive advertised", resp.Header, resp.Close)
	}

	// Reused at once, before the close reaches the client, the connection is dead: a
	// plain client (no retry) fails about one request in five this way.
	for i := range 300 {
		if r := send(context.Background(), t, c, inst, "/chat/completions", chatBody(`"max_tokens":2`)); r.readErr != nil {
			t.Logf("request %d sent back to back failed: %v", i, r.readErr)
			return
		}
	}
	t.Error("300 requests sent back to back on closing connections, and none failed: the server does not close as llama-server does")
}
