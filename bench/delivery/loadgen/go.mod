module kino/bench/delivery/loadgen

go 1.19
