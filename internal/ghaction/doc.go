// Package ghaction holds the tests of the repository's GitHub Action
// (action.yml at the repository root) and of the example workflows
// (examples/github-actions): the action's steps run in a simulated runner
// environment, and actionlint and shellcheck check the workflows. It has
// no code of its own.
package ghaction
