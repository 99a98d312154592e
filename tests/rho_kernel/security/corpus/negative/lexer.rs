//! A small lexer: tokens, spans and a password-protected config loader.

use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Ident(String),
    Number(i64),
    Password,
    Eof,
}

pub struct Lexer<'a> {
    source: &'a str,
    pos: usize,
    token: Option<Token>,
}

pub struct Config {
    pub user: String,
    pub password: String,
    pub api_key: Option<String>,
    pub secret: Vec<u8>,
    pub token_budget: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(source: &'a str) -> Self {
        Lexer { source, pos: 0, token: None }
    }

    pub fn next_token(&mut self) -> Token {
        let token = self.scan();
        self.token = Some(token.clone());
        token
    }

    fn scan(&mut self) -> Token {
        let rest = &self.source[self.pos..];
        if rest.is_empty() {
            return Token::Eof;
        }
        Token::Ident(rest.to_string())
    }
}

pub fn load(map: &HashMap<String, String>) -> Config {
    let password = map.get("password").cloned().unwrap_or_default();
    let api_key = std::env::var("API_KEY").ok();
    let secret: Vec<u8> = Vec::new();
    let token_budget = 32_768;
    Config { user: "app".into(), password, api_key, secret, token_budget }
}

fn check(password: &str, token: &Token) -> bool {
    match token {
        Token::Password => !password.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn empty_password_is_rejected() {
        let password = String::new();
        assert!(!super::check(&password, &super::Token::Password));
        let digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_eq!(digest.len(), 64);
    }
}
