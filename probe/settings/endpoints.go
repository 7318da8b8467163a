package settings

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/probe/client"
)

// The environment variables of the endpoint: the base URL when nothing else names one,
// and the API key's default variable.
const (
	BaseURLEnv    = "OPENAI_BASE_URL"
	DefaultKeyEnv = "OPENAI_API_KEY"
)

// Endpoint is one endpoint's settings: its own (an item of the file's endpoints, --url,
// $OPENAI_BASE_URL), or those for every endpoint (Settings.Endpoint: the flags).
type Endpoint struct {
	// Where the endpoint was configured, for messages: "--url", "$OPENAI_BASE_URL",
	// "config F: line N: endpoints[i] (name)". Not a setting: Apply keeps the base's.
	Where string

	URL, Name, Model Value[string]
	API              Value[string] // chat or completions
	KeyEnv           Value[string] // the variable that holds the API key
	Insecure         Value[bool]
	Headers          Value[http.Header]    // merged by name: a header given replaces the file's
	ExtraBody        Value[map[string]any] // merged by key
	// ServerMetrics is the server's Prometheus metrics: "" (the URL's origin +
	// /metrics), off, or a URL.
	ServerMetrics Value[string]

	invalid error // what is wrong with it as written (its file headers), said if it is used
}

// endpointFlags registers the endpoint flags. --url names the one endpoint to measure;
// the others apply to every endpoint.
func (f *Flags) endpointFlags(fs *pflag.FlagSet) {
	g, d := &f.Given.Endpoint, &f.Defaults.Endpoint
	url := kind[[]Endpoint]{typ: "string",
		parse: func(s string) ([]Endpoint, error) {
			return []Endpoint{{Where: "--url", URL: val(s, flagOrigin(Flag, "url"))}}, nil
		},
		show: func(eps []Endpoint) string {
			if len(eps) == 0 {
				return ""
			}
			return eps[0].URL.V
		}}
	bind(fs, &f.Given.Endpoints, &f.Defaults.Endpoints, url, "url", nil,
		"base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1 (default $"+BaseURLEnv+")")
	bind(fs, &g.Model, &d.Model, text, "model", "", "model name (default: the only model the server serves)")
	bind(fs, &g.API, &d.API, text, "api", "chat", "API to call: chat (/chat/completions), completions (/completions), messages (Anthropic's /messages) or responses (OpenAI's /responses)")
	bind(fs, &g.KeyEnv, &d.KeyEnv, text, "api-key-env", DefaultKeyEnv,
		"name of the environment variable that holds the API key (the key is never printed)")
	var noLines Value[[]string]
	bind(fs, &f.header, &noLines, lines, "header", nil, `extra request header "Name: value" (repeatable; values are never printed)`)
	d.Headers = val(http.Header{}, Origin{})
	var noBody Value[string]
	bind(fs, &f.extraBody, &noBody, text, "extra-body", "",
		`JSON object merged into every request body, e.g. '{"temperature":0,"min_tokens":200}'`)
	bind(fs, &g.Insecure, &d.Insecure, boolean, "insecure", false, "skip TLS certificate verification")
	bind(fs, &g.ServerMetrics, &d.ServerMetrics, text, "server-metrics", "",
		"the server's Prometheus metrics (running, waiting, KV cache, generated tokens): a URL, or off (default: the endpoint URL's origin + /metrics, scraped once a second)")
}

// envLayer is what the environment sets: the endpoint of $OPENAI_BASE_URL, and the
// shard index of $JOB_COMPLETION_INDEX.
func envLayer(getenv func(string) string) Settings {
	var s Settings
	if u := getenv(BaseURLEnv); u != "" {
		s.Endpoints = val([]Endpoint{{Where: "$" + BaseURLEnv, URL: val(u, envOrigin(BaseURLEnv))}}, envOrigin(BaseURLEnv))
	}
	if v := getenv(JobIndexEnv); v != "" {
		s.Shard.JobIndex = val(v, envOrigin(JobIndexEnv))
	}
	return s
}

// endpointFile is one item of the file's endpoints.
type endpointFile struct {
	Name          string            `yaml:"name"`
	URL           string            `yaml:"url"`
	Model         string            `yaml:"model"`
	API           apiName           `yaml:"api"`
	APIKeyEnv     envName           `yaml:"api_key_env"`
	Headers       map[string]string `yaml:"headers"`
	ExtraBody     map[string]any    `yaml:"extra_body"`
	Insecure      bool              `yaml:"insecure"`
	ServerMetrics string            `yaml:"server_metrics"` // off, or its URL
}

// layer is endpoint i of file c as its own settings.
func (e endpointFile) layer(c *fileConfig, i int) Endpoint {
	at := func(key string) Origin { return c.keyOrigin(i, key) }
	ep := Endpoint{Where: c.where(i), Insecure: val(e.Insecure, at("insecure")), ServerMetrics: val(strings.TrimSpace(e.ServerMetrics), at("server_metrics"))}
	for _, s := range []struct {
		v   *Value[string]
		key string
		x   string
	}{{&ep.URL, "url", e.URL}, {&ep.Name, "name", e.Name}, {&ep.Model, "model", e.Model}, {&ep.API, "api", string(e.API)}, {&ep.KeyEnv, "api_key_env", string(e.APIKeyEnv)}} {
		if s.x != "" {
			*s.v = val(s.x, at(s.key))
		}
	}
	h := http.Header{}
	for k, v := range e.Headers {
		if err := parseHeader(k+": "+v, h); err != nil && ep.invalid == nil {
			ep.invalid = errorf("%s: headers: %v", ep.Where, strings.TrimSpace(strings.TrimPrefix(err.Error(), "--header")))
		}
	}
	if len(e.Headers) > 0 {
		ep.Headers = val(h, at("headers"))
	}
	if e.ExtraBody != nil {
		ep.ExtraBody = val(e.ExtraBody, at("extra_body"))
	}
	return ep
}

// sharedFlags is the flags given, with --header and --extra-body parsed; it checks the
// API key's variable (given or not).
func (f *Flags) sharedFlags(merged Endpoint) (Settings, error) {
	given := f.Given
	if e := given.Endpoints; e.Set && len(e.V) == 1 && e.V[0].URL.V == "" {
		given.Endpoints = Value[[]Endpoint]{} // --url "" names no endpoint, as an empty $OPENAI_BASE_URL
	}
	if f.header.Set {
		h := http.Header{}
		for _, line := range f.header.V {
			if err := parseHeader(line, h); err != nil {
				return given, errorf("%v", err)
			}
		}
		given.Endpoint.Headers = val(h, f.header.From)
	}
	if f.extraBody.Set && f.extraBody.V != "" {
		m, err := parseExtraBody(f.extraBody.V)
		if err != nil {
			return given, errorf("%v", err)
		}
		given.Endpoint.ExtraBody = val(m, f.extraBody.From)
	}
	if k := Apply(merged, given.Endpoint).KeyEnv; k.V == "" {
		return given, errorf("--api-key-env: want the name of an environment variable, e.g. OPENAI_API_KEY")
	} else if err := client.CheckKeyEnv(k.V); err != nil {
		return given, fieldUsage(err, k.From)
	}
	return given, nil
}

// endpoints are the run's endpoints sending the workload w: each one's own settings
// over below (what the defaults, the environment and the file set for every endpoint),
// under the flags given.
func (p *Plan) endpoints(s Settings, below, given Endpoint, w client.Endpoint, getenv func(string) string) error {
	for _, own := range s.Endpoints.V {
		if !own.URL.Set {
			return errorf("%s: url is required, e.g. url: http://127.0.0.1:8000/v1", own.Where)
		}
		if own.invalid != nil {
			return own.invalid
		}
		e := Apply(Apply(below, own), given)
		u, err := client.NormalizeBaseURL(e.URL.V)
		if err != nil {
			return fieldUsage(err, e.URL.From)
		}
		ep := w
		ep.BaseURL, ep.Name, ep.Model, ep.API, ep.Insecure = u, e.Name.V, e.Model.V, e.API.V, e.Insecure.V
		ep.APIKey = getenv(e.KeyEnv.V)
		ep.Headers, ep.ExtraBody = e.Headers.V.Clone(), e.ExtraBody.V
		if ep.APIKey == "" && e.KeyEnv.V != DefaultKeyEnv {
			p.Notes = append(p.Notes, fmt.Sprintf("$%s is empty or unset, so %s gets no API key", e.KeyEnv.V, own.Where))
		}
		p.Endpoints = append(p.Endpoints, ep)
		p.Sources = append(p.Sources, own.Where)
		p.KeyEnvs = append(p.KeyEnvs, e.KeyEnv.V)
		p.metrics = append(p.metrics, e.ServerMetrics)
	}
	if s.Profile.Given() {
		p.Notes = append(p.Notes, fmt.Sprintf("--profile %q is ignored: it is for the built-in simulator, used only when no endpoint is configured", s.Profile.V))
	}
	nameEndpoints(p.Endpoints)
	return nil
}

// nameEndpoints gives every endpoint a distinct name: its own, else its host.
func nameEndpoints(eps []client.Endpoint) {
	seen := map[string]int{}
	for i := range eps {
		if eps[i].Name == "" {
			eps[i].Name = client.EndpointLabel(eps[i])
		}
		seen[eps[i].Name]++
		if n := seen[eps[i].Name]; n > 1 {
			eps[i].Name = fmt.Sprintf("%s#%d", eps[i].Name, n)
		}
	}
}
