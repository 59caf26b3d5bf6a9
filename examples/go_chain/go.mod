module go_chain

go 1.19
