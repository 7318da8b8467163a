package workload

import (
	"reflect"
	"strings"
	"testing"
)

const dialogs = `{"conversations": [{"from": "gpt", "value": "Welcome"}, {"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello!"}, {"from": "human", "value": "What is SSE?"}, {"from": "gpt", "value": "Server-sent events."}, {"from": "human", "value": "Thanks"}]}
{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "One"}, {"role": "assistant", "content": "1"}, {"role": "user", "content": "Two"}, {"role": "assistant", "content": "2"}], "max_tokens": 64}
{"prompt": "Alone"}
`

func TestParseDialogsKeepsShareGPTConversations(t *testing.T) {
	kept, _, err := ParseDialogs(strings.NewReader(dialogs))
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{{"assistant", "Welcome"}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "What is SSE?"}, {"assistant", "Server-sent events."}, {"user", "Thanks"}}
	if !reflect.DeepEqual(kept[0].Dialog, want) || kept[0].Prompt != "Hi" {
		t.Errorf("dialog %+v, prompt %q", kept[0].Dialog, kept[0].Prompt)
	}
	plain, _, err := Parse(strings.NewReader(dialogs))
	if err != nil || plain[0].Dialog != nil || plain[0].Prompt != "Hi" {
		t.Errorf("Parse keeps the dialog (%v) or loses the prompt %q: %v", plain[0].Dialog, plain[0].Prompt, err)
	}
}

// Each turn's request carries every earlier ask and the dataset's answer to it, then its
// own ask; the conversation ends after its last user turn.
func TestConversationCarriesTheHistory(t *testing.T) {
	entries, _, err := ParseDialogs(strings.NewReader(dialogs))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConversations(entries, 1, 0, TurnsAll, false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 3 || c.Turns() != 3+2+1 {
		t.Fatalf("%d conversations, %d turns; want 3 and 6", c.Len(), c.Turns())
	}
	byFirst := map[string][]Request{}
	for range 3 {
		talk := c.Begin()
		var reqs []Request
		for {
			r, ok := talk.Next()
			if !ok {
				break
			}
			reqs = append(reqs, r)
		}
		byFirst[reqs[0].Messages[len(reqs[0].Messages)-1].Content] = reqs
	}
	share := byFirst["Hi"]
	if len(share) != 3 {
		t.Fatalf("the ShareGPT conversation played %d turns, want 3", len(share))
	}
	wantLast := []Message{{"user", "Hi"}, {"assistant", "Hello!"}, {"user", "What is SSE?"}, {"assistant", "Server-sent events."}, {"user", "Thanks"}}
	if !reflect.DeepEqual(share[2].Messages, wantLast) || share[2].Turn != 3 || share[0].Turn != 1 || share[2].KeepAnswer {
		t.Errorf("turn 3 = %+v", share[2])
	}
	if !reflect.DeepEqual(share[0].Messages, wantLast[:1]) {
		t.Errorf("turn 1's messages changed after later turns: %+v", share[0].Messages)
	}
	msgs := byFirst["One"]
	if len(msgs) != 2 || msgs[0].MaxTokens != 64 || len(msgs[0].Messages) != 2 || msgs[0].Messages[0].Role != "system" {
		t.Fatalf("the messages conversation = %+v", msgs)
	}
	if got := msgs[1].Messages; len(got) != 4 || got[2] != (Message{"assistant", "1"}) || got[3] != (Message{"user", "Two"}) {
		t.Errorf("its second turn = %+v", got)
	}
	if alone := byFirst["Alone"]; len(alone) != 1 || alone[0].Turn != 1 {
		t.Errorf("a prompt is one turn: %+v", alone)
	}
}

// With live history, the answer in the history is the one the server gave.
func TestConversationLiveHistory(t *testing.T) {
	entries, _, _ := ParseDialogs(strings.NewReader(dialogs))
	c, err := NewConversations(entries[:1], 1, 3, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	talk := c.Begin()
	r1, _ := talk.Next()
	if !r1.KeepAnswer || len(strings.Fields(r1.Messages[0].Content)) != 4 || !strings.HasSuffix(r1.Messages[0].Content, " Hi") {
		t.Errorf("turn 1 = %+v (want the 3-word prefix before Hi, and KeepAnswer)", r1)
	}
	talk.Answer("the server's own words")
	r2, _ := talk.Next()
	if r2.Messages[1] != (Message{"assistant", "the server's own words"}) {
		t.Errorf("turn 2's history = %+v", r2.Messages)
	}
	if _, ok := talk.Next(); ok {
		t.Error("a third turn was played with turns = 2")
	}
}

func TestParseTurns(t *testing.T) {
	for in, want := range map[string]int{"first": 1, "": 1, "ALL": TurnsAll, "3": 3} {
		if got, err := ParseTurns(in); err != nil || got != want {
			t.Errorf("ParseTurns(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "some"} {
		if _, err := ParseTurns(in); err == nil || !strings.Contains(err.Error(), "want first, all or a number") {
			t.Errorf("ParseTurns(%q) = %v", in, err)
		}
	}
}

func TestNewConversationsRefusesADatasetWithoutTurns(t *testing.T) {
	if _, err := NewConversations([]Entry{{Messages: []Message{{"system", "x"}}}}, 1, 0, TurnsAll, false); err != ErrNoTurns {
		t.Errorf("err = %v, want ErrNoTurns", err)
	}
}
