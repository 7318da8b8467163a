package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
)

// A conversation is replayed turn by turn: each request of a turn carries the whole
// history before it (every earlier ask and its answer), as a chat client does, so that a
// server with prefix caching answers later turns from its cache. The answers in the
// history are the dataset's own, or with live history the server's real answers to the
// earlier turns of the same conversation.

// turn is one turn of a conversation: the messages the user adds (a system message,
// tool results, then the user's message) and the dataset's answer to them ("" when the
// dataset has none: the conversation's last turn).
type turn struct {
	ask    []Message
	answer string
}

// conversation is one conversation of a dataset.
type conversation struct {
	turns     []turn
	maxTokens int
}

// splitTurns cuts a dialog into turns: each ends at the assistant messages that answer
// a user message. Assistant messages before the first user message are left out (a
// chat begins with the user); several assistant messages in a row are one answer.
func splitTurns(dialog []Message) []turn {
	var out []turn
	var ask []Message
	asked := false
	for _, m := range dialog {
		if m.Role != "assistant" {
			ask = append(ask, m)
			asked = asked || m.Role == "user"
			continue
		}
		switch {
		case asked:
			out = append(out, turn{ask: ask, answer: m.Content})
			ask, asked = nil, false
		case len(out) > 0 && len(ask) == 0:
			out[len(out)-1].answer += "\n\n" + m.Content
		}
	}
	if asked {
		out = append(out, turn{ask: ask})
	}
	return out
}

// TurnsAll asks Conversations for every turn of each conversation.
const TurnsAll = 0

// Conversations gives each user the next conversation of a dataset, in a seeded order
// (every conversation once, then the same order again), to play turn by turn (Talk).
// It is safe for concurrent use; a Talk is one user's and is not.
type Conversations struct {
	convs    []conversation
	order    []int
	next     atomic.Uint64
	maxTurns int // 0: every turn
	live     bool
	prefix   string
	turns    int // turns a pass over the dataset sends
}

// ErrNoTurns is a dataset in which no conversation has a user turn.
var ErrNoTurns = errors.New("the dataset holds no conversation with a user turn")

// NewConversations returns the conversations of entries (ShareGPT records replay their
// whole Dialog, "messages" records are cut at each user message, a prompt is one turn),
// shuffled by seed, each playing at most maxTurns turns (TurnsAll: every turn), with a
// shared prefix of prefixTokens words before the first message. live asks for the
// server's real answers in the history (Talk.Answer) instead of the dataset's.
func NewConversations(entries []Entry, seed uint64, prefixTokens, maxTurns int, live bool) (*Conversations, error) {
	if prefixTokens < 0 || prefixTokens > MaxLength {
		return nil, &PrefixError{Tokens: prefixTokens}
	}
	if maxTurns < 0 {
		return nil, fmt.Errorf("turns %d: want %d (all) or more", maxTurns, TurnsAll)
	}
	c := &Conversations{maxTurns: maxTurns, live: live}
	for _, e := range entries {
		var dialog []Message
		switch {
		case e.Dialog != nil:
			dialog = e.Dialog
		case e.Messages != nil:
			dialog = e.Messages
		default:
			dialog = []Message{{Role: "user", Content: e.Prompt}}
		}
		if ts := splitTurns(dialog); len(ts) > 0 {
			c.convs = append(c.convs, conversation{turns: ts, maxTokens: e.MaxTokens})
			c.turns += c.playedOf(len(ts))
		}
	}
	if len(c.convs) == 0 {
		return nil, ErrNoTurns
	}
	c.order = rand.New(rand.NewPCG(seed, 0xc0417)).Perm(len(c.convs))
	if prefixTokens > 0 {
		c.prefix = Words(seed^prefixSalt, prefixTokens)
	}
	return c, nil
}

// playedOf is how many of a conversation's n turns are played.
func (c *Conversations) playedOf(n int) int {
	if c.maxTurns > 0 {
		return min(n, c.maxTurns)
	}
	return n
}

// Len is the number of conversations; Turns the turns one pass over them sends.
func (c *Conversations) Len() int   { return len(c.convs) }
func (c *Conversations) Turns() int { return c.turns }

// Live reports whether the history carries the server's answers.
func (c *Conversations) Live() bool { return c.live }

// Request implements Source: the first turn of conversation i (what a run that sends
// each request on its own would send).
func (c *Conversations) Request(i uint64) Request {
	t := c.talk(i)
	r, _ := t.Next()
	return r
}

// Begin starts the next conversation, for one user.
func (c *Conversations) Begin() *Talk { return c.talk(c.next.Add(1) - 1) }

func (c *Conversations) talk(i uint64) *Talk {
	return &Talk{src: c, conv: &c.convs[c.order[i%uint64(len(c.order))]]}
}

// Talk is one user's conversation: Next gives each turn's request in order, carrying
// the history; Answer hands it the server's answer to the latest turn (live history).
type Talk struct {
	src     *Conversations
	conv    *conversation
	turn    int       // turns sent
	history []Message // the messages of the turns sent, answers included once known
	answer  string    // the server's answer to the latest turn ("" before Answer)
}

// Next is the request of the next turn, false when the conversation is over. Its
// messages are every earlier turn's ask and answer, then this turn's ask.
func (t *Talk) Next() (Request, bool) {
	c := t.conv
	if t.turn >= t.src.playedOf(len(c.turns)) {
		return Request{}, false
	}
	if t.turn > 0 {
		ans := c.turns[t.turn-1].answer
		if t.src.live {
			ans = t.answer
		}
		t.history = append(t.history, Message{Role: "assistant", Content: ans})
	}
	ask := c.turns[t.turn].ask
	if t.turn == 0 && t.src.prefix != "" {
		ask = append([]Message(nil), ask...)
		ask[0].Content = t.src.prefix + " " + ask[0].Content
	}
	t.history = append(t.history, ask...)
	t.turn++
	t.answer = ""
	return Request{
		Messages:   t.history[:len(t.history):len(t.history)],
		MaxTokens:  c.maxTokens,
		Turn:       t.turn,
		KeepAnswer: t.src.live,
	}, true
}

// Answer records the server's answer to the latest turn (used with live history).
func (t *Talk) Answer(text string) { t.answer = text }

// Turn is the number of turns sent so far.
func (t *Talk) Turn() int { return t.turn }

// ParseTurns reads how many turns of each conversation to play: "first" (1), "all"
// (TurnsAll) or a whole number of at least 1.
func ParseTurns(s string) (int, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "", "first":
		return 1, nil
	case "all":
		return TurnsAll, nil
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("turns %q: want first, all or a number of turns of at least 1", s)
		}
		return n, nil
	}
}
