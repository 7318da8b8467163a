package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
)

// ReplayKeyMap is every key of tpsmon replay. The help footer is generated from it, so
// what the help says is what the keys do.
type ReplayKeyMap struct {
	Pause     key.Binding
	Play      key.Binding // same keys as Pause; enabled while paused
	RealTime  key.Binding
	Faster    key.Binding // speed ×2, up to MaxReplaySpeed
	Slower    key.Binding // speed ÷2, down to real time
	Back      key.Binding // a minute back
	Forward   key.Binding // a minute on
	PrevLevel key.Binding // the start of the level shown, or of the one before
	NextLevel key.Binding // the start of the next level
	Restart   key.Binding
	End       key.Binding
	Diag      key.Binding // every finding of the diagnosis, with its evidence
	ViewKeys
}

// DefaultReplayKeyMap returns replay's keys.
func DefaultReplayKeyMap() ReplayKeyMap {
	return ReplayKeyMap{
		Pause:     key.NewBinding(key.WithKeys("space", " ", "p"), key.WithHelp("space/p", "pause")),
		Play:      key.NewBinding(key.WithKeys("space", " ", "p"), key.WithHelp("space/p", "play"), key.WithDisabled()),
		RealTime:  key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "real time")),
		Faster:    key.NewBinding(key.WithKeys(">", "."), key.WithHelp(">", "faster")),
		Slower:    key.NewBinding(key.WithKeys("<", ","), key.WithHelp("<", "slower")),
		Back:      key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "1 min back")),
		Forward:   key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "1 min on")),
		PrevLevel: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "this level's start, previous level")),
		NextLevel: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next level")),
		Restart:   key.NewBinding(key.WithKeys("r", "home"), key.WithHelp("r/home", "from the start")),
		End:       key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "to the end")),
		Diag:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diagnosis")),
		ViewKeys:  defaultViewKeys(),
	}
}

// ShortHelp is the one-line help.
func (k ReplayKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Pause, k.Play, k.Faster, k.Slower, k.seekHelp(), k.levelHelp(), k.Help, k.Quit}
}

// seekHelp and levelHelp are the seek keys in one entry each, for the one-line help.
func (k ReplayKeyMap) seekHelp() key.Binding {
	return key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "∓1 min"))
}

func (k ReplayKeyMap) levelHelp() key.Binding {
	return key.NewBinding(key.WithKeys("[", "]"), key.WithHelp("[/]", "levels"))
}

// FullHelp is the `?` help, in columns: playback, seeking, the view and the program.
func (k ReplayKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pause, k.Play, k.RealTime, k.Faster, k.Slower},
		{k.Back, k.Forward, k.PrevLevel, k.NextLevel, k.Restart, k.End},
		{k.Next, k.Prev, k.Diag, k.Theme, k.Help, k.Quit},
	}
}

// setPaused swaps the pause and play bindings.
func (k *ReplayKeyMap) setPaused(paused bool) {
	k.Pause.SetEnabled(!paused)
	k.Play.SetEnabled(paused)
}

// setSpeed words the speed keys for speed: what faster and slower lead to, and neither
// past its end.
func (k *ReplayKeyMap) setSpeed(speed int) {
	k.Faster.SetHelp(">", fmt.Sprintf("speed ×%d", min(speed*2, MaxReplaySpeed)))
	k.Faster.SetEnabled(speed < MaxReplaySpeed)
	k.Slower.SetHelp("<", "real time")
	if speed > 2 {
		k.Slower.SetHelp("<", fmt.Sprintf("speed ×%d", speed/2))
	}
	k.Slower.SetEnabled(speed > 1)
}
