"""Word lists for people: common given names (international), honorifics, name particles.

A given name followed by capitalised words starts a PERSON; alone it is one only when it
is not also an everyday word, a month, a place or a piece of software (`AMBIGUOUS_GIVEN`).
"""

from __future__ import annotations

from zerda.entities._lists import words

GIVEN_NAMES = words(
    """
    Aaron Abdul Abigail Abraham Adam Adrian Ahmed Aisha Akira Alan Albert Alberto Alejandro
    Alex Alexander Alexandra Alexis Ali Alice Alicia Alison Amanda Amara Amelia Amir Amit
    Amy Ana Ananya Anastasia Anders Andrea Andreas Andrew Andrés Angela Anil Anita Ann Anna
    Anne Annie Antoine Antonio Arjun Arthur Ashley Astrid Aurélie Ava Barbara Beatriz Ben
    Benjamin Bernard Beth Betty Bianca Björn Brandon Brenda Brian Bruce Bruno Camila Camille
    Carl Carla Carlos Carmen Caroline Carolyn Catherine Charles Charlie Chiara Chinedu Chloe
    Chloé Chris Christina Christine Christopher Claire Clara Claudia Colin Craig Cynthia
    Daniel Daniela Danielle Dana David Deborah Debra Deepak Denise Dennis Diana Diane Diego
    Dmitri Dmitry Donald Donna Doris Dorothy Douglas Duncan Edward Elena Eleanor Eli Elif
    Elijah Elizabeth Ella Ellen Emily Emma Emmanuel Eric Erik Ethan Eugene Evelyn Fatima
    Felix Fernanda Fernando Fiona Francesca Francesco Francisco François Fred Frederick
    Friedrich Gabriel Gabriela Gary George Gerald Giovanni Giulia Giuseppe Gloria Gregory
    Hannah Hans Harold Harriet Harry Hassan Heather Heinrich Helen Helena Henry Hiroshi Hugh
    Ian Ibrahim Ingrid Ines Inés Inês Irene Isaac Isabel Isabella Ivan Jack Jacob Jakub
    James Jamie Jane Janet Janice Jason Javier Jean Jeff Jeffrey Jennifer Jeremy Jerry
    Jessica Jing Joan Joanna Joe John Jonathan Jorge José Joseph Joshua Joyce Juan Judith
    Julian Julie Julien Jürgen Justin Kamala Karen Karim Karl Katarzyna Kate Katherine
    Kathleen Kathryn Katie Kelly Ken Kenji Kenneth Kevin Khalid Kim Klaus Kofi Kwame Larry
    Lars Laura Lauren Layla Lea Léa Leila Lena Leo Leon Leonardo Liam Linda Lisa Logan
    Lorenzo Louis Louise Luca Lucas Lucia Lucía Luis Lukas Madeleine Magnus Malcolm Manon
    Manuel Marco Margaret Maria María Mariam Marie Marina Mario Marion Marta Martha Martin
    Mary Mateo Matteo Matthew Matthias Megan Mehmet Mei Melissa Mia Michael Michelle Miguel
    Mikhail Mohammed Mohammad Muhammad Monica Mustafa Nadia Nancy Naomi Natalie Natasha
    Nathan Neha Nicholas Nicola Nicolas Nicole Nikolai Nils Noah Nora Nour Oliver Olivia
    Olga Omar Pablo Pamela Patricia Patrick Paul Paula Pedro Peter Philip Philippe Pierre
    Piotr Pooja Priya Rachel Rafael Rahul Raj Rajesh Ravi Raymond Rebecca Richard Robert
    Roberto Rohan Ronald Rosa Ruth Ryan Sabine Sakura Samantha Samuel Sandra Sanjay Sara
    Sarah Scott Sean Sebastian Sergei Sergey Sharon Shirley Simon Simone Sofia Sofía Sophia
    Sophie Stefan Stephanie Stephen Steve Steven Sunita Susan Sven Takeshi Tatiana Teresa
    Thabo Theresa Thomas Timothy Tomás Tom Tomasz Ursula Valentina Vanessa Victor Vikram
    Vincent Vladimir Walter Wanjiru Wei Wendy William Wolfgang Xavier Yasmin Youssef Yuki
    Yusuf Zainab Zoe Zoë Octavia Estelle
    """
)

# Given names that are also everyday words, months, places or software: a PERSON only
# when a capitalised surname follows ("Grace Hopper", never "Grace under pressure").
AMBIGUOUS_GIVEN = words(
    """
    Ada Amber April August Autumn Bill Chase Claude Crystal Dawn Faith Frank Gene Grace Guy
    Hope Hugo Iris Ivy Jade Jasmine Jordan June Joy Julia Kit Mark Max May Miles Olive Pat
    Pearl Ray Rose Ruby Sandy Summer Sue Will Christian Georgia Victoria Florence Austin
    Sydney Paris Chelsea Madison Dallas Lincoln Jackson Adelaide Charlotte Phoenix Savannah
    Mercedes Alexa Siri Jan Min Ming Oscar Maya
    """
)

# Titles before a name; the title itself is not part of the PERSON.
HONORIFICS = words(
    """
    Mr Mrs Ms Miss Mx Dr Prof Professor Sir Dame Lord Lady President Senator Sen Rep
    Representative Governor Gov Mayor Judge Chancellor Minister General Gen Colonel Col
    Captain Capt Lieutenant Lt Sergeant Sgt Admiral Father Fr Rev Reverend Rabbi Imam Pope
    King Queen Prince Princess Uncle Aunt Coach Detective Officer Agent Nurse Doctor Sheikh
    """
)

# Honorifics of two words, matched as a pair.
HONORIFIC_PAIRS = frozenset({("Prime", "Minister"), ("Vice", "President")})

# Lower-case words inside names: "Guido van Rossum", "Leonardo da Vinci".
PARTICLES = words("van von der den de da di del della du la le bin ibn al dos das")

# After a surname: "Martin Luther King Jr.", "Elizabeth II".
GENERATIONAL = words("Jr Jr. Sr Sr. II III IV")

# Abbreviations that keep their full stop as part of the word.
ABBREVIATIONS = words(
    """
    Mr Mrs Ms Mx Dr Prof Sen Rep Gov Gen Col Capt Lt Sgt Rev Fr St Mt Ft Jr Sr Inc Corp Co
    Ltd Bros Univ Dept Assn
    """
)

# Dotted capitals that are not someone's initials.
NOT_INITIALS = words("A.M. P.M. B.C. A.D. U.S. U.K. U.S.A. E.U. U.N. D.C. N.Y. L.A. I.E. E.G.")
