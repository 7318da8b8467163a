package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxLine bounds one line of a JSON Lines dataset (and one ShareGPT file as a whole is
// read entry by entry).
const MaxLine = 16 << 20

// ErrEmpty is returned for a dataset with no request in it.
var ErrEmpty = errors.New("the dataset holds no request (the file is empty, or every line is blank)")

// LineError is a dataset line (or ShareGPT entry) that cannot be sent. It names the line
// and what is wrong, never a flag.
type LineError struct {
	Line  int // 1-based line where the bad line or entry starts
	Entry int // 1-based entry of a ShareGPT array; 0 for JSON Lines
	Why   string
}

func (e *LineError) Error() string {
	if e.Entry > 0 {
		return fmt.Sprintf("dataset entry %d (line %d): %s", e.Entry, e.Line, e.Why)
	}
	return fmt.Sprintf("dataset line %d: %s", e.Line, e.Why)
}

// Message is one chat message of a dataset request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Entry is one request of a dataset: a prompt or chat messages (exactly one of the
// two), and the max_tokens it asks for (0: the run's own). Dialog is a ShareGPT
// record's whole conversation as chat messages (its first human turn is the Prompt),
// which a conversation replays turn by turn (see Conversations).
type Entry struct {
	Prompt    string
	Messages  []Message
	MaxTokens int
	Dialog    []Message
}

// line is the JSON a dataset line may hold.
type line struct {
	Prompt        *string         `json:"prompt"`
	Messages      json.RawMessage `json:"messages"`
	Conversations json.RawMessage `json:"conversations"`
	MaxTokens     json.RawMessage `json:"max_tokens"`
}

// lineExamples say what to write for each key of a dataset line.
var lineExamples = map[string]string{
	"prompt":        `{"prompt": "Tell me about Go."}`,
	"messages":      `{"messages": [{"role": "user", "content": "Hi"}]}`,
	"conversations": `{"conversations": [{"from": "human", "value": "Hi"}]}`,
}

// errNoHuman is a ShareGPT conversation with no human turn (skipped in a ShareGPT array).
var errNoHuman = errors.New(`"conversations" has no human turn with text`)

// roles are the chat roles a dataset message may have.
var roles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true}

// ParseLine reads one JSON Lines request: {"prompt": "..."} or {"messages": [{"role":
// "user", "content": "..."}]}, optionally "max_tokens" (a whole number, at least 1), or
// a ShareGPT record {"conversations": [{"from": "human", "value": "..."}, ...]} whose
// first human turn becomes the prompt. Other keys are ignored.
func ParseLine(b []byte) (Entry, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return Entry{}, errors.New(`not a JSON object: want {"prompt": "..."} or {"messages": [...]}`)
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		if words, ok := typeWords(err, lineExamples); ok {
			return Entry{}, errors.New(words)
		}
		return Entry{}, fmt.Errorf("not valid JSON: %v", err)
	}
	var e Entry
	given := 0
	if l.Prompt != nil {
		given++
		if strings.TrimSpace(*l.Prompt) == "" {
			return Entry{}, errors.New(`"prompt" is empty`)
		}
		e.Prompt = *l.Prompt
	}
	if present(l.Messages) {
		given++
		msgs, err := parseMessages(l.Messages)
		if err != nil {
			return Entry{}, err
		}
		e.Messages = msgs
	}
	if present(l.Conversations) {
		given++
		p, dialog, err := firstHumanTurn(l.Conversations)
		if err != nil {
			return Entry{}, err
		}
		e.Prompt, e.Dialog = p, dialog
	}
	switch {
	case given == 0:
		return Entry{}, errors.New(`no "prompt", "messages" or "conversations"`)
	case given > 1:
		return Entry{}, errors.New(`give one of "prompt", "messages" and "conversations", not several`)
	}
	if present(l.MaxTokens) {
		var n int
		if err := json.Unmarshal(l.MaxTokens, &n); err != nil || n < 1 || n > MaxLength {
			return Entry{}, fmt.Errorf(`"max_tokens" is %s: want a whole number from 1 to %d`, clip(l.MaxTokens), MaxLength)
		}
		e.MaxTokens = n
	}
	return e, nil
}

func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// clip shortens a JSON value for an error message.
func clip(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:37]) + "..."
	}
	return string(raw)
}

func parseMessages(raw json.RawMessage) ([]Message, error) {
	var ms []struct {
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &ms); err != nil {
		return nil, errors.New(`"messages" is not a list of {"role": ..., "content": "..."}`)
	}
	if len(ms) == 0 {
		return nil, errors.New(`"messages" is empty`)
	}
	out := make([]Message, len(ms))
	for i, m := range ms {
		if m.Role == nil || !roles[*m.Role] {
			return nil, fmt.Errorf(`messages[%d] has no role system, developer, user, assistant or tool`, i)
		}
		c, err := messageText(m.Content)
		if err != nil {
			return nil, fmt.Errorf(`messages[%d].content %v: write its text in quotes, e.g. {"role": "user", "content": "Hi"}`, i, err)
		}
		out[i] = Message{Role: *m.Role, Content: c}
	}
	return out, nil
}

// shareGPTRoles are the chat roles of ShareGPT's "from" values; others are left out.
var shareGPTRoles = map[string]string{
	"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant",
	"chatgpt": "assistant", "bard": "assistant", "bing": "assistant", "model": "assistant",
	"system": "system",
}

// firstHumanTurn is the first turn from "human" (or "user") of a ShareGPT conversation,
// and the whole conversation as chat messages.
func firstHumanTurn(raw json.RawMessage) (string, []Message, error) {
	var turns []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal(raw, &turns); err != nil {
		return "", nil, errors.New(`"conversations" is not a list of {"from": ..., "value": "..."}`)
	}
	first := ""
	dialog := make([]Message, 0, len(turns))
	for _, t := range turns {
		role := shareGPTRoles[strings.ToLower(t.From)]
		if role == "" || strings.TrimSpace(t.Value) == "" {
			continue
		}
		if role == "user" && first == "" {
			first = t.Value
		}
		dialog = append(dialog, Message{Role: role, Content: t.Value})
	}
	if first == "" {
		return "", nil, errNoHuman
	}
	return first, dialog, nil
}

// Parse reads a whole dataset: JSON Lines (one request per line; blank lines are
// skipped; any bad line is refused with its number) or, when the first thing in the
// file is "[", a ShareGPT JSON array. ShareGPT files routinely hold conversations with
// no human turn: those entries are skipped and counted in skipped; any other bad entry
// is refused. A dataset with no request is refused with ErrEmpty.
func Parse(r io.Reader) (entries []Entry, skipped int, err error) { return parse(r, false) }

// ParseDialogs is Parse keeping each ShareGPT record's whole conversation (Entry.Dialog),
// for a run that replays conversations turn by turn; Parse leaves them out, to hold a
// large ShareGPT file's first turns only.
func ParseDialogs(r io.Reader) (entries []Entry, skipped int, err error) { return parse(r, true) }

func parse(r io.Reader, dialogs bool) (entries []Entry, skipped int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		_, _ = br.Discard(3) // a UTF-8 byte order mark, as some editors write
	}
peek:
	for {
		c, err := br.Peek(1)
		if err != nil {
			if err == io.EOF {
				return nil, 0, ErrEmpty
			}
			return nil, 0, err
		}
		switch c[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.ReadByte()
			continue
		case '[':
			return parseArray(br, dialogs)
		}
		break peek
	}
	return parseLines(br, dialogs)
}

// LoadFile reads the dataset at path (see Parse). Errors name the file.
func LoadFile(path string) (entries []Entry, skipped int, err error) { return load(path, false) }

// LoadDialogs reads the dataset at path keeping whole conversations (see ParseDialogs).
func LoadDialogs(path string) (entries []Entry, skipped int, err error) { return load(path, true) }

func load(path string, dialogs bool) (entries []Entry, skipped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err // *fs.PathError names the file
	}
	defer f.Close()
	entries, skipped, err = parse(f, dialogs)
	if err != nil {
		return nil, skipped, fmt.Errorf("%s: %w", path, err)
	}
	return entries, skipped, nil
}

func parseLines(r io.Reader, dialogs bool) ([]Entry, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	var out []Entry
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		e, err := ParseLine(b)
		if err != nil {
			return nil, 0, &LineError{Line: n, Why: err.Error()}
		}
		if !dialogs {
			e.Dialog = nil
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, 0, &LineError{Line: n + 1, Why: fmt.Sprintf("longer than %d MiB", MaxLine>>20)}
		}
		return nil, 0, err
	}
	if len(out) == 0 {
		return nil, 0, ErrEmpty
	}
	return out, 0, nil
}

// lineCounter counts the newlines read, so that a ShareGPT entry's line can be named.
// It keeps only the newlines after the latest offset asked about (asked in order).
type lineCounter struct {
	r      io.Reader
	lines  []int64 // offsets of newlines not yet passed
	passed int     // newlines before the latest offset asked about
	off    int64
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			c.lines = append(c.lines, c.off+int64(i))
		}
	}
	c.off += int64(n)
	return n, err
}

// lineAt is the 1-based line of the byte at offset off.
// Offsets must be asked about in increasing order.
func (c *lineCounter) lineAt(off int64) int {
	n := 0
	for n < len(c.lines) && c.lines[n] < off {
		n++
	}
	c.passed += n
	c.lines = c.lines[n:]
	return c.passed + 1
}

func parseArray(r io.Reader, dialogs bool) ([]Entry, int, error) {
	lc := &lineCounter{r: r}
	dec := json.NewDecoder(lc)
	if _, err := dec.Token(); err != nil { // '['
		return nil, 0, &LineError{Line: 1, Why: "not a JSON array: " + err.Error()}
	}
	var out []Entry
	skipped := 0
	for i := 1; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, &LineError{Line: lc.lineAt(dec.InputOffset() + 1), Entry: i, Why: "not valid JSON: " + err.Error()}
		}
		start := lc.lineAt(dec.InputOffset() - int64(len(raw)))
		e, err := ParseLine(raw)
		if err != nil {
			if errors.Is(err, errNoHuman) {
				skipped++
				continue
			}
			return nil, 0, &LineError{Line: start, Entry: i, Why: err.Error()}
		}
		if !dialogs {
			e.Dialog = nil
		}
		out = append(out, e)
	}
	if _, err := dec.Token(); err != nil { // ']'
		return nil, 0, &LineError{Line: lc.lineAt(dec.InputOffset()), Why: "the JSON array does not end: " + err.Error()}
	}
	if len(out) == 0 {
		return nil, skipped, ErrEmpty
	}
	return out, skipped, nil
}
