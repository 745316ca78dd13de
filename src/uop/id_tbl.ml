(* keys hold id + 1 (0 marks an empty slot); [vals] is made at the first binding, filled with that value,
   since an ['a] to fill it with exists only then. [log] holds the slots bound since the table was made or
   cleared, so that clearing costs the bindings, not the capacity *)
type 'a t = {
  mutable keys : int array;
  mutable vals : 'a array;
  mutable count : int;
  mutable shift : int;
  mutable log : int array;
}

(* Fibonacci hashing: the top bits of id * 2^62/phi spread consecutive ids over the whole table *)
let golden = 0x278DDE6E5FD29E00 lor 1

let bits_for n = let rec go b = if 1 lsl b >= n then b else go (b + 1) in go 4

let create n =
  let b = bits_for (2 * max n 8) in
  { keys = Array.make (1 lsl b) 0; vals = [||]; count = 0; shift = 63 - b;
    log = Array.make (1 lsl (b - 1)) 0 }

let slot t id = (id * golden) lsr t.shift

let length t = t.count

(* the slot of [id], or the empty slot where it would go *)
let rec probe keys mask k i =
  let x = Array.unsafe_get keys i in
  if x = k || x = 0 then i else probe keys mask k ((i + 1) land mask)

let index t id = probe t.keys (Array.length t.keys - 1) (id + 1) (slot t id)

let mem t id = Array.unsafe_get t.keys (index t id) <> 0

let find_opt t id =
  let i = index t id in
  if Array.unsafe_get t.keys i = 0 then None else Some (Array.unsafe_get t.vals i)

let find_or t id default =
  let i = index t id in
  if Array.unsafe_get t.keys i = 0 then default else Array.unsafe_get t.vals i

let rec replace t id v =
  if Array.length t.vals = 0 then t.vals <- Array.make (Array.length t.keys) v;
  let i = index t id in
  if Array.unsafe_get t.keys i <> 0 then Array.unsafe_set t.vals i v
  else if 2 * (t.count + 1) > Array.length t.keys then begin grow t; replace t id v end
  else begin
    Array.unsafe_set t.keys i (id + 1); Array.unsafe_set t.vals i v;
    (* the load stays under a half, so the log (half the slots) has room *)
    Array.unsafe_set t.log t.count i;
    t.count <- t.count + 1
  end

(* twice the slots, every binding placed again *)
and grow t =
  let keys = t.keys and vals = t.vals and log = t.log and n = t.count in
  let cap = 2 * Array.length keys in
  t.keys <- Array.make cap 0; t.vals <- Array.make cap vals.(0); t.count <- 0; t.shift <- t.shift - 1;
  t.log <- Array.make (cap / 2) 0;
  for k = 0 to n - 1 do let i = log.(k) in replace t (keys.(i) - 1) vals.(i) done

let clear t filler =
  for k = 0 to t.count - 1 do
    let i = t.log.(k) in
    t.keys.(i) <- 0; t.vals.(i) <- filler
  done;
  t.count <- 0

(* a table this large is dropped rather than kept for the next walk: its arrays would stay in the heap *)
let max_pooled_slots = 1 lsl 20

type 'a pool = { mutable free : 'a t list; filler : 'a }

let pool filler = { free = []; filler }

let with_table p f =
  let t = match p.free with t :: rest -> p.free <- rest; t | [] -> create 16 in
  let r = f t in
  clear t p.filler;
  if Array.length t.keys <= max_pooled_slots then p.free <- t :: p.free;
  r
