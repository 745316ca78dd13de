(* the ids of a table: keys hold id + 1 (0 marks an empty slot); [log] holds the slots bound since the set was
   made or cleared, so that clearing costs the bindings, not the capacity *)
type keys = {
  mutable keys : int array;
  mutable count : int;
  mutable shift : int;
  mutable log : int array;
}

(* keys, and [vals] beside them: made at the first binding, since an ['a] to fill it with exists only then.
   [filler] fills the slots no id is bound to: a pool's filler, or the one the last [clear] was given; until
   the table has one, the first value bound fills the free slots (and a growth's new slots), so that [clear]
   then fills the whole array once, and a table kept for reuse holds no value it no longer binds *)
type 'a t = { ks : keys; mutable vals : 'a array; mutable filler : 'a option }

(* Fibonacci hashing: the top bits of id * 2^62/phi spread consecutive ids over the whole table *)
let golden = 0x278DDE6E5FD29E00 lor 1

let bits_for n = let rec go b = if 1 lsl b >= n then b else go (b + 1) in go 4

let create_keys n =
  let b = bits_for (2 * max n 8) in
  { keys = Array.make (1 lsl b) 0; count = 0; shift = 63 - b; log = Array.make (1 lsl (b - 1)) 0 }

let create n = { ks = create_keys n; vals = [||]; filler = None }

(* the value for the slots no id is bound to, when [v] is being bound *)
let free_slot_value t v = match t.filler with Some f -> f | None -> v

let slot s id = (id * golden) lsr s.shift

let length t = t.ks.count

(* the slot of [id], or the empty slot where it would go *)
let rec probe keys mask k i =
  let x = Array.unsafe_get keys i in
  if x = k || x = 0 then i else probe keys mask k ((i + 1) land mask)

let index s id = probe s.keys (Array.length s.keys - 1) (id + 1) (slot s id)

(* [id] put in its empty slot [i] (the load stays under a half, so the log, half the slots, has room) *)
let bind s i id =
  Array.unsafe_set s.keys i (id + 1);
  Array.unsafe_set s.log s.count i;
  s.count <- s.count + 1

let full s = 2 * (s.count + 1) > Array.length s.keys

(* twice the slots, every id placed again; [moved old_slot new_slot] for each *)
let grow_keys s moved =
  let keys = s.keys and log = s.log and n = s.count in
  let cap = 2 * Array.length keys in
  s.keys <- Array.make cap 0; s.count <- 0; s.shift <- s.shift - 1;
  s.log <- Array.make (cap / 2) 0;
  for k = 0 to n - 1 do
    let i = log.(k) in
    let id = keys.(i) - 1 in
    let j = index s id in
    bind s j id; moved i j
  done

let clear_keys s =
  for k = 0 to s.count - 1 do s.keys.(s.log.(k)) <- 0 done;
  s.count <- 0

let mem t id = Array.unsafe_get t.ks.keys (index t.ks id) <> 0

let find_opt t id =
  let i = index t.ks id in
  if Array.unsafe_get t.ks.keys i = 0 then None else Some (Array.unsafe_get t.vals i)

let find_or t id default =
  let i = index t.ks id in
  if Array.unsafe_get t.ks.keys i = 0 then default else Array.unsafe_get t.vals i

let rec replace t id v =
  if Array.length t.vals = 0 then t.vals <- Array.make (Array.length t.ks.keys) (free_slot_value t v);
  let i = index t.ks id in
  if Array.unsafe_get t.ks.keys i <> 0 then Array.unsafe_set t.vals i v
  else if full t.ks then begin
    let vals = t.vals in
    let nvals = Array.make (2 * Array.length vals) (free_slot_value t v) in
    grow_keys t.ks (fun i j -> Array.unsafe_set nvals j (Array.unsafe_get vals i));
    t.vals <- nvals;
    replace t id v
  end
  else begin bind t.ks i id; Array.unsafe_set t.vals i v end

let clear t filler =
  (match t.filler with
   | Some _ -> for k = 0 to t.ks.count - 1 do t.vals.(t.ks.log.(k)) <- filler done
   | None -> Array.fill t.vals 0 (Array.length t.vals) filler);
  t.filler <- Some filler;
  clear_keys t.ks

(* a table this large is dropped rather than kept for the next walk: its arrays would stay in the heap *)
let max_pooled_slots = 1 lsl 20

type 'a pool = { mutable free : 'a t list; filler : 'a }

let pool filler = { free = []; filler }

let with_table p f =
  let t = match p.free with
    | t :: rest -> p.free <- rest; t
    | [] -> { (create 16) with filler = Some p.filler } in
  let r = f t in
  clear t p.filler;
  if Array.length t.ks.keys <= max_pooled_slots then p.free <- t :: p.free;
  r

module Set = struct
  type t = keys

  let create = create_keys

  let mem s id = Array.unsafe_get s.keys (index s id) <> 0

  let rec add s id =
    let i = index s id in
    if Array.unsafe_get s.keys i = 0 then
      if full s then begin grow_keys s (fun _ _ -> ()); add s id end else bind s i id

  let length s = s.count

  let clear = clear_keys

  type pool = { mutable free : t list }

  let pool () = { free = [] }

  let with_set p f =
    let s = match p.free with s :: rest -> p.free <- rest; s | [] -> create 16 in
    let r = f s in
    clear s;
    if Array.length s.keys <= max_pooled_slots then p.free <- s :: p.free;
    r
end
