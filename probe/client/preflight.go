package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// PreflightTimeout bounds Preflight.
const PreflightTimeout = 5 * time.Second

// ServedModel is one model of a GET /models answer: its name, and who owns it when
// the server says (OpenAI's owned_by; tpsmon's simulator says "tpsmon-sim").
type ServedModel struct {
	ID      string
	OwnedBy string
}

// ModelIDs are the names of models.
func ModelIDs(models []ServedModel) []string {
	ids := make([]string, len(models))
	for i, m := range models {
		ids[i] = m.ID
	}
	return ids
}

// Preflight checks that the endpoint answers within a few seconds: GET {BaseURL}/models.
// It returns the models served. A connection failure, a TLS failure or a 401/403 is an
// error naming the URL and the cause (never the key); a 404 or a non-JSON answer is not
// (some servers have no /models) and returns no names.
func Preflight(ctx context.Context, ep Endpoint) (models []ServedModel, err error) {
	ep.Model = "-" // Preflight does not need a model; normalize insists on one.
	ep, u, err := normalize(ep)
	if err != nil {
		return nil, err
	}
	where := safeURL(u.JoinPath("models"))
	tr := newTransport(ep, 1)
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}

	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, PreflightTimeout)
	defer cancel()
	waited := func() time.Duration { return time.Since(start).Round(100 * time.Millisecond) }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(ep.BaseURL, "/")+"/models", nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", where, err)
	}
	for k, vs := range ep.Headers {
		req.Header[k] = vs
	}
	if ep.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+ep.APIKey)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, fmt.Errorf("GET %s: no answer within %s: is the server up and is the endpoint URL right?", where, waited())
		}
		if errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("GET %s: %w", where, context.Canceled) // err's URL keeps the userinfo
		}
		return nil, fmt.Errorf("GET %s: %s", where, newRedactor(ep).clean(connectMessage(err, hostPort(u))))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("GET %s: no complete answer within %s", where, waited())
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("GET %s: %s", where, httpMessage(resp.StatusCode, "", endpointCredentials(ep)))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, nil // no /models here (404) or it fails: the real requests will tell
	}
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil {
		return nil, nil
	}
	for _, m := range list.Data {
		if m.ID != "" {
			models = append(models, ServedModel{ID: m.ID, OwnedBy: m.OwnedBy})
		}
	}
	return models, nil
}
