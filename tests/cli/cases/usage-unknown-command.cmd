topolgy list
