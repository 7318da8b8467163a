package ui

import "charm.land/bubbles/v2/key"

// ReplayKeyMap is every key of tpsmon replay. The help footer is generated from it, so
// what the help says is what the keys do.
type ReplayKeyMap struct {
	Pause   key.Binding
	Play    key.Binding // same keys as Pause; enabled while paused
	Speed1  key.Binding
	Speed2  key.Binding
	Speed4  key.Binding
	Restart key.Binding
	ViewKeys
}

// DefaultReplayKeyMap returns replay's keys.
func DefaultReplayKeyMap() ReplayKeyMap {
	return ReplayKeyMap{
		Pause:    key.NewBinding(key.WithKeys("space", " ", "p"), key.WithHelp("space/p", "pause")),
		Play:     key.NewBinding(key.WithKeys("space", " ", "p"), key.WithHelp("space/p", "play"), key.WithDisabled()),
		Speed1:   key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "real time")),
		Speed2:   key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "speed ×2")),
		Speed4:   key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "speed ×4")),
		Restart:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "from the start")),
		ViewKeys: defaultViewKeys(),
	}
}

// ShortHelp is the one-line help.
func (k ReplayKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Pause, k.Play, k.Speed1, k.Speed2, k.Speed4, k.Help, k.Quit}
}

// FullHelp is the `?` help, in columns: playback, view, program.
func (k ReplayKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pause, k.Play, k.Speed1, k.Speed2, k.Speed4, k.Restart},
		{k.Next, k.Prev, k.Theme},
		{k.Help, k.Quit},
	}
}

// setPaused swaps the pause and play bindings.
func (k *ReplayKeyMap) setPaused(paused bool) {
	k.Pause.SetEnabled(!paused)
	k.Play.SetEnabled(paused)
}
