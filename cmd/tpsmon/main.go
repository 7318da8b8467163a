// Command tpsmon load-tests OpenAI-compatible streaming endpoints. Implemented in the cmd worktree.
package main

func main() {}
