package sim

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// authorized reports whether r may be served: without Config.AuthKey always; with it
// only when r carries "Authorization: Bearer <key>". Otherwise it answers HTTP 401 the
// way vLLM's --api-key does ({"error": "Unauthorized"}).
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.AuthKey == "" || r.Header.Get("Authorization") == "Bearer "+s.cfg.AuthKey {
		return true
	}
	if isCompletion(r.URL.Path) {
		s.stats.requests.Add(1)
	}
	s.stats.errs[errHTTP401].Add(1)
	writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "Unauthorized"})
	return false
}

// isCompletion reports whether path is one of the completion endpoints.
func isCompletion(path string) bool {
	return path == "/v1/chat/completions" || path == "/v1/completions"
}

// refuse answers a completion request with Config.Refuse's status, in the words a
// real server or gateway uses for it, and counts it.
func (s *Server) refuse(w http.ResponseWriter) {
	s.stats.requests.Add(1)
	status := s.cfg.Refuse
	why := "--refuse " + strconv.Itoa(status)
	switch status {
	case http.StatusUnauthorized:
		s.stats.errs[errHTTP401].Add(1)
		writeJSON(w, status, map[string]any{"error": "Unauthorized"})
	case http.StatusForbidden:
		s.fail(w, errHTTP403, status, "PermissionDeniedError", "",
			"the API key has no access to this model (simulated: "+why+")")
	case http.StatusNotFound:
		s.fail(w, errHTTP404, status, "NotFoundError", "model",
			fmt.Sprintf("The model `%s` does not exist. (simulated: %s)", s.cfg.Model, why))
	case http.StatusTooManyRequests:
		s.setRetryAfter(w)
		s.fail(w, errHTTP429, status, "RateLimitError", "",
			"rate limit reached for requests: retry later (simulated: "+why+")")
	case http.StatusInternalServerError:
		s.fail(w, errHTTP500, status, "InternalServerError", "", "simulated server error ("+why+")")
	case http.StatusServiceUnavailable:
		s.fail(w, errHTTP503, status, "ServiceUnavailableError", "", "the service is unavailable (simulated: "+why+")")
	default:
		s.fail(w, errHTTPOther, status, strings.ReplaceAll(http.StatusText(status), " ", "")+"Error", "",
			"simulated HTTP "+strconv.Itoa(status)+" ("+why+")")
	}
}

// setRetryAfter sets an HTTP 429's Retry-After header (Config.RetryAfter in whole
// seconds, rounded up) when the server gives one.
func (s *Server) setRetryAfter(w http.ResponseWriter) {
	if d := s.cfg.RetryAfter; d > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	}
}

// throughProxy waits for a place in the proxy in front (Config.ProxyLimit) and returns
// the function that gives it back; ok is false when the client left or the server
// closed first. Without a proxy it returns at once.
func (s *Server) throughProxy(r *http.Request) (leave func(), ok bool) {
	if s.proxy == nil {
		return func() {}, true
	}
	select {
	case s.proxy <- struct{}{}:
		return func() { <-s.proxy }, true
	case <-r.Context().Done():
		return nil, false
	case <-s.quit:
		return nil, false
	}
}

// streamErrorEvent is the in-band error a stream ends with (Config.StreamErrorRate),
// vLLM's form: an error object in a data event, then [DONE].
const streamErrorEvent = `data: {"error":{"object":"error","message":"simulated engine failure in the middle of the answer (stream_error_rate)","type":"InternalServerError","param":null,"code":500}}` + "\n\n"
