package model

import (
	"strconv"
	"strings"
)

// LengthWords says what each request of a run asked for, as every surface words its
// settings: max_tokens ("256") and the prompt's size ("about 128 tokens"), each ""
// when the requests drew their own (Workload says so: "max_tokens drawn from
// uniform:64:512", "prompt tokens drawn from ...", or a dataset's prompts). The mean
// of a draw, which MaxTokens and PromptTokens then hold, is no request's setting:
// "max_tokens 288" beside "max_tokens drawn from uniform:64:512" says two things.
func (s *ReportSettings) LengthWords() (maxTokens, prompt string) {
	if s.MaxTokens > 0 && !strings.Contains(s.Workload, "max_tokens drawn from ") {
		maxTokens = strconv.Itoa(s.MaxTokens)
	}
	drawn := strings.Contains(s.Workload, "prompt tokens drawn from ") || strings.HasPrefix(s.Workload, "dataset ")
	if s.PromptTokens > 0 && !drawn {
		prompt = "about " + strconv.Itoa(s.PromptTokens) + " tokens"
	}
	return maxTokens, prompt
}
