from datetime import date, timedelta


class LibraryError(Exception):
    pass


class Book:
    def __init__(self, isbn, title, author):
        self.isbn, self.title, self.author = isbn, title, author
        self.borrower = self.due = None

    @property
    def available(self):
        return self.borrower is None

    def __str__(self):
        state = "in" if self.available else f"out to {self.borrower} until {self.due}"
        return f"{self.title} by {self.author} [{state}]"


class Library:
    LOAN_DAYS, FINE_PER_DAY, MAX_LOANS = 14, 0.25, 2

    def __init__(self, *books):
        self.books = {b.isbn: b for b in books}

    def loans(self, member):
        return [b for b in self.books.values() if b.borrower == member]

    def checkout(self, isbn, member, today):
        if (book := self.books.get(isbn)) is None:
            raise LibraryError(f"no such book {isbn}")
        if not book.available:
            raise LibraryError(f"'{book.title}' is already checked out")
        if len(self.loans(member)) >= self.MAX_LOANS:
            raise LibraryError(f"{member} has reached the loan limit")
        book.borrower, book.due = member, today + timedelta(days=self.LOAN_DAYS)

    def checkin(self, isbn, today):
        book = self.books[isbn]
        late = max((today - book.due).days, 0)
        book.borrower = book.due = None
        return late * self.FINE_PER_DAY


lib = Library(Book("111", "Dune", "Herbert"), Book("222", "Emma", "Austen"),
              Book("333", "Ulysses", "Joyce"), Book("444", "Beloved", "Morrison"))
d0 = date(2024, 4, 1)
for isbn, who in [("111", "Ana"), ("222", "Ana"), ("333", "Ana"), ("111", "Raj"), ("999", "Raj"), ("444", "Raj")]:
    try:
        lib.checkout(isbn, who, d0)
        print(f"{who} borrowed {lib.books[isbn].title}")
    except LibraryError as e:
        print("refused:", e)
print(f"fine for Dune: ${lib.checkin('111', d0 + timedelta(days=20)):.2f}")
print(f"fine for Beloved: ${lib.checkin('444', d0 + timedelta(days=10)):.2f}")
for book in sorted(lib.books.values(), key=lambda b: b.title):
    print(" ", book)
print("Ana's loans:", [b.title for b in lib.loans("Ana")], "| available:", sum(b.available for b in lib.books.values()))
