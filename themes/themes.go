// Package themes holds tpsmon's colour palettes: role-named colours, one Theme each.
// Implemented in the ui worktree.
package themes
