topology --bogus
