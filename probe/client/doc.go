// Package client is tpsmon's HTTP client for OpenAI-compatible streaming endpoints: a
// Client streams chat or completions requests to one Endpoint and turns each into a
// model.Sample, counting tokens live in a probe.Progress. It implements probe.Streamer,
// which is all the pool knows of it; it imports probe, never the other way.
//
// A request, file by file:
//   - endpoint.go, baseurl.go, fielderror.go: the Endpoint, its defaults and checks
//     (a refused setting is a *FieldError naming the setting, never a flag);
//   - client.go: New (the connection pool) and Stream, which drives one request;
//   - body.go, prompt.go: the request body (the template, the synthetic prompt of each
//     request, or a workload's request);
//   - send.go, watchdog.go: sending it (with one retry on a dead keep-alive connection),
//     stamping t_send and t_headers, and the timer that ends a stream gone quiet;
//   - linereader.go: the event stream split into lines, the clock read once per read;
//   - readloop.go: the per-event loop, which counts tokens and ends the stream;
//   - decode.go, decode_fast.go: what one data payload says (the allocation-free path
//     for the common content delta, encoding/json for the rest);
//   - errors.go, redact.go: failures classified and said in words, with no secret;
//   - preflight.go, label.go: GET /models before a run, and how an endpoint is named.
package client
