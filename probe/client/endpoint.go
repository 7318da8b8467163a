package client

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/probe/workload"
)

// Endpoint is one OpenAI-compatible server under test and the workload sent to it.
type Endpoint struct {
	Name      string      // short label for screens and reports (defaults to the host)
	BaseURL   string      // e.g. http://127.0.0.1:8000/v1 (scheme, host, and the path before /chat/completions)
	Model     string      // model name sent in every request
	API       string      // "chat" (default), "completions", "messages" or "responses" (api.go)
	APIKey    string      // sent as a bearer token; never printed, logged or reported
	Headers   http.Header // extra request headers; values never printed
	MaxTokens int         // max_tokens per request (default 256)
	Prompt    string      // prompt text; empty means a synthetic prompt of PromptTokens tokens
	// PromptTokens asks for a synthetic prompt of about this many tokens (default 128)
	// when Prompt is empty.
	PromptTokens int
	ExtraBody    map[string]any // merged into every request body (top-level keys override)
	IgnoreEOS    bool           // shorthand for ExtraBody {"ignore_eos": true}
	// Timeout bounds the wait for response headers and for each next event of the
	// stream (default 60 s). It does not bound a long healthy generation.
	Timeout   time.Duration
	Insecure  bool // skip TLS verification (off by default)
	Simulated bool // the endpoint is tpsmon's built-in simulator
	// PromptSeed seeds the synthetic prompts (when Prompt is empty): every request gets
	// the next prompt of the seed's sequence. 0 means a random seed, drawn by New
	// (Client.Endpoint tells which).
	PromptSeed uint64
	// Workload, when set, gives every request's prompt (or messages) and max_tokens in
	// place of Prompt, PromptTokens and MaxTokens: a dataset or length distributions.
	Workload workload.Source
	// Served is the models the server's /models listed when tpsmon asked before the run
	// (nil: not asked, or it listed none): the diagnosis names them when the model asked
	// for is unknown.
	Served []string
}

// Defaults applied by New to an Endpoint's zero fields.
const (
	DefaultAPI          = "chat"
	DefaultMaxTokens    = 256
	DefaultPromptTokens = 128
	DefaultTimeout      = 60 * time.Second
)

// normalize applies defaults and validates ep. A refused setting is a *FieldError.
func normalize(ep Endpoint) (Endpoint, *url.URL, error) {
	base, err := NormalizeBaseURL(ep.BaseURL)
	if err != nil {
		return ep, nil, err
	}
	u, err := url.Parse(base)
	if err != nil { // NormalizeBaseURL returns only URLs that parse
		return ep, nil, &FieldError{Field: FieldURL, Value: safeRawURL(base), Problem: "is not a URL"}
	}
	ep.BaseURL = base
	if ep.API == "" {
		ep.API = DefaultAPI
	}
	if !ValidAPI(ep.API) {
		return ep, nil, &FieldError{Field: FieldAPI, Value: ep.API, Problem: "want " + APIWords}
	}
	if strings.TrimSpace(ep.Model) == "" {
		return ep, nil, &FieldError{Field: FieldModel, Problem: "is required: the model name " + safeURL(u) + " serves (its GET /models lists them)"}
	}
	switch {
	case ep.MaxTokens == 0:
		ep.MaxTokens = DefaultMaxTokens
	case ep.MaxTokens < 0:
		return ep, nil, &FieldError{Field: FieldMaxTokens, Value: strconv.Itoa(ep.MaxTokens), Problem: "want at least 1"}
	}
	switch {
	case ep.PromptTokens == 0:
		ep.PromptTokens = DefaultPromptTokens
	case ep.PromptTokens < 0:
		return ep, nil, &FieldError{Field: FieldPromptTokens, Value: strconv.Itoa(ep.PromptTokens), Problem: "want at least 1"}
	}
	switch {
	case ep.Timeout == 0:
		ep.Timeout = DefaultTimeout
	case ep.Timeout < 0:
		return ep, nil, &FieldError{Field: FieldTimeout, Value: ep.Timeout.String(), Problem: "want a positive duration such as 60s"}
	}
	if ep.Name == "" {
		ep.Name = u.Host
	}
	return ep, u, nil
}
