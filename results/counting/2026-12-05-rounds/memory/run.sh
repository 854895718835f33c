#!/bin/sh
# Peak resident memory after the column of counts per round (session 35): the script of
# 2026-12-03 (../../memory.sh) with its cases and the three largest models of the study besides (linear TC and
# `installable` on Debian, `go_terms` on GO BP), reports and TABLE.md written here.
#   sh results/counting/2026-12-05-rounds/memory/run.sh
HERE=results/counting/2026-12-05-rounds/memory CASES="nll_liveness_init rust-nll:memchr function-edit -;\
polonius_naive rust-nll:memchr function-edit -;\
andersen rust-mir:memchr function-edit -;\
two_hop debian-deps delete -;\
tc_linear go-bp delete -;\
tc_linear debian-deps delete -;\
installable debian-deps delete -;\
go_terms go-bp delete -" exec sh results/counting/memory.sh
