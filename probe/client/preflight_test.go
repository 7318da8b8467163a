package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPreflight(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		key     string
		models  []string
		wantErr string
	}{
		{name: "models listed", status: 200, body: `{"object":"list","data":[{"id":"llama-3-8b","object":"model"},{"id":"qwen"}]}`,
			models: []string{"llama-3-8b", "qwen"}},
		{name: "404 is not an error", status: 404, body: `{"detail":"Not Found"}`},
		{name: "non-JSON is not an error", status: 200, body: "<html>hello</html>"},
		{name: "401 names the URL, not the key", status: 401, key: testKey, body: `{"error":{"message":"bad ` + testKey + `"}}`,
			wantErr: "refused the API key"},
		{name: "403 without key", status: 403, wantErr: "none was sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotAuth string
			ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/models" {
					t.Errorf("path %q", r.URL.Path)
				}
				gotAuth = r.Header.Get("Authorization")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			ep.APIKey = tt.key
			ep.Model = ""
			models, err := Preflight(context.Background(), ep)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "/v1/models") {
					t.Fatalf("err = %v, want %q naming the URL", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("err shows the key: %v", err)
				}
				return
			}
			if err != nil || !slices.Equal(ModelIDs(models), tt.models) {
				t.Fatalf("models, err = %v, %v; want %v", models, err, tt.models)
			}
			if tt.key != "" && gotAuth != "Bearer "+tt.key {
				t.Errorf("Authorization %q", gotAuth)
			}
		})
	}
}

func TestPreflightUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err = Preflight(context.Background(), Endpoint{BaseURL: "http://u:secretpw@" + addr + "/v1"})
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "http://"+addr+"/v1/models") {
		t.Fatalf("err = %v, want connection refused naming the URL", err)
	}
	if strings.Contains(err.Error(), "secretpw") {
		t.Errorf("err shows userinfo: %v", err)
	}
}

func TestPreflightTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Preflight(ctx, ep)
	if err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("err = %v after %v, want a prompt error", err, time.Since(start))
	}
	if !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("err = %v", err)
	}
}

// TestPreflightCanceledAndShortDeadline: a caller's cancel or shorter deadline gives an
// error that names neither the URL's userinfo nor a wait that did not happen.
func TestPreflightCanceledAndShortDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	ep.BaseURL = strings.Replace(ep.BaseURL, "http://", "http://tok-SECRET-1234@", 1)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := Preflight(ctx, ep)
	if err == nil || !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("canceled: err = %v; want context.Canceled without the userinfo", err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = Preflight(ctx, ep)
	if err == nil || strings.Contains(err.Error(), PreflightTimeout.String()) || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("200 ms deadline: err = %v; want no claim of a %s wait, no userinfo", err, PreflightTimeout)
	}
}
